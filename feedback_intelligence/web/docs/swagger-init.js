// Starts Swagger UI from a file, not an inline script, so the docs keep a CSP without 'unsafe-inline'
// for scripts. Everything is served by the app itself: no CDN, no validator badge calling out.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  displayOperationId: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 1,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  layout: "BaseLayout",
});
