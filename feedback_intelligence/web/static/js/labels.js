// Display labels for domain keys: the domain's own labels from /schema, else built-in words, else the key.

const DEFAULT_SEVERITIES = ["low", "medium", "high", "critical"];
const DEFAULT_SENTIMENTS = ["positive", "negative", "neutral"];
// ISO 639-1 codes a clerk can pick for the language of a feedback: the languages customers in a
// Finnish or Nordic shop most often write in. The detected value is added when it is not listed.
export const LANGUAGE_CHOICES = ["fi", "sv", "en", "et", "ru", "uk", "de", "fr", "es", "pl", "ar", "so", "fa", "tr",
  "zh", "th", "vi"];

/** "Swedish (sv)" in the page's language; the bare code where the browser has no name for it. */
function languageName(code, locale) {
  let name = null;
  try {
    name = new Intl.DisplayNames([locale || "en"], { type: "language" }).of(code);
  } catch {
    name = null;
  }
  if (!name || name === code) return code;
  return `${name.charAt(0).toLocaleUpperCase(locale)}${name.slice(1)} (${code})`;
}

export function makeLabels(schema, t) {
  const sc = schema || {};
  const fromBundle = (prefix, key) => (t.has(`${prefix}.${key}`) ? t(`${prefix}.${key}`) : key);
  const field = typeof sc.categoryField === "string" && sc.categoryField.trim() ? sc.categoryField.trim() : null;
  return {
    category: (key) => (sc.categoryLabels && sc.categoryLabels[key]) || key,
    issue: (key) => (sc.issueLabels && sc.issueLabels[key]) || key,
    severity: (key) => (sc.severityLabels && sc.severityLabels[key]) || fromBundle("severity", key),
    type: (key) => (sc.typeLabels && sc.typeLabels[key]) || key,
    sentiment: (key) => (sc.sentimentLabels && sc.sentimentLabels[key]) || fromBundle("sentiment", key),
    source: (key) => fromBundle("source", key),
    language: (code) => languageName(code, t.locale),
    alert: (key) => (t.has(`alert.${key}`) ? t(`alert.${key}`) : String(key).replace(/_/g, " ")),
    severityOrder: Array.isArray(sc.severities) && sc.severities.length ? sc.severities : DEFAULT_SEVERITIES,
    sentimentOrder: Array.isArray(sc.sentiments) && sc.sentiments.length ? sc.sentiments : DEFAULT_SENTIMENTS,
    categoryOrder: Array.isArray(sc.categories) ? sc.categories : [],
    typeOrder: Array.isArray(sc.types) ? sc.types : [],
    demoted: Array.isArray(sc.demotedCategories) ? sc.demotedCategories : [],
    typeSentiment: sc.typeSentiment || {},
    categoryFieldTitle: field ? field.charAt(0).toUpperCase() + field.slice(1) : t("field.category"),
    categoryFieldWord: field ? field.toLowerCase() : t("field.category").toLowerCase(),
  };
}
