// The sign-in page (FI_AUTH local or oidc): a password form, or the single sign-on button.
import { getJson, request } from "./api.js";

const ERRORS = {
  sso: "Kertakirjautuminen ei onnistunut. Yritä uudelleen.",
  provider: "Tunnistuspalveluun ei saatu yhteyttä. Yritä hetken kuluttua uudelleen.",
  disabled: "Tämä tunnus on poistettu käytöstä. Ota yhteys ylläpitoon.",
};

// Where to go after signing in is the server's decision alone (auth/next_path.py): the page passes its
// `next` on as given, and goes where the sign-in's answer (or the single sign-on's redirect) says.
// A fragment never reaches the server: a link to `/#case=live:…` redirected here keeps `#case=…` on this
// page's address alone, so it joins `next` here, or the case link would land on the page without its case.
function askedNext() {
  const next = new URLSearchParams(location.search).get("next");
  const hash = location.hash.length > 1 ? location.hash : "";
  if (!hash) return next;
  const path = next ?? "/";
  return path.includes("#") ? path : `${path}${hash}`;
}

/** The asked `next` within the sign-in body's bound (SigninIn.next); a longer one is no path of ours. */
function nextToSend() {
  const next = askedNext();
  return next !== null && next.length <= 2048 ? next : "/";
}

function show(id, on = true) {
  document.getElementById(id).hidden = !on;
}

function say(text) {
  document.getElementById("signin-status").textContent = text;
}

async function start() {
  let me;
  try {
    me = await getJson("/auth/me");
  } catch {
    say("Palvelin ei vastaa. Päivitä sivu hetken kuluttua.");
    return;
  }
  const problem = new URLSearchParams(location.search).get("error");
  if (me.signedIn) {
    document.getElementById("signed-in-as").textContent = `Olet kirjautunut: ${me.displayName || me.username}.`;
    show("signed-in-box");
  } else if (me.auth === "local") {
    show("signin-form");
    document.getElementById("signin-username").focus();
  } else if (me.auth === "oidc") {
    const link = document.getElementById("sso-btn");
    const next = askedNext();
    link.href = next === null ? "/auth/oidc/login" : `/auth/oidc/login?next=${encodeURIComponent(next)}`;
    if (problem && ERRORS[problem]) {
      const box = document.getElementById("sso-error");
      box.textContent = ERRORS[problem];
      box.hidden = false;
    }
    show("sso-box");
  } else if (me.auth === "none") {
    say("Tässä palvelussa ei kirjauduta: palautepiste ja raportti ovat kaikkien käytettävissä.");
  } else {
    say("Kirjautuminen hoidetaan organisaatiosi välityspalvelimella.");
  }
}

document.getElementById("signin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("signin-error");
  error.hidden = true;
  const button = document.getElementById("signin-btn");
  button.disabled = true;
  try {
    const response = await request("/auth/signin", {
      method: "POST",
      body: {
        username: document.getElementById("signin-username").value,
        password: document.getElementById("signin-password").value,
        next: nextToSend(),
      },
    });
    if (response.ok) {
      const body = await response.json().catch(() => ({}));
      location.assign(typeof body.next === "string" ? body.next : "/");
      return;
    }
    if (response.status === 429) {
      const body = await response.json().catch(() => ({}));
      error.textContent = `Liian monta yritystä. Yritä uudelleen ${body.retryAfterSeconds || 60} sekunnin kuluttua.`;
    } else if (response.status === 401) {
      error.textContent = "Käyttäjätunnus tai salasana on väärin.";
    } else {
      error.textContent = "Kirjautuminen ei onnistunut. Yritä uudelleen.";
    }
    error.hidden = false;
  } catch {
    error.textContent = "Palvelin ei vastaa. Yritä hetken kuluttua uudelleen.";
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
});

document.getElementById("signout-btn").addEventListener("click", async () => {
  await request("/auth/signout", { method: "POST" }).catch(() => null);
  location.assign("/signin");
});

start();
