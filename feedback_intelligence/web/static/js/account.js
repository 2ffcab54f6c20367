// The signed-in person's own page (/account, linked from their name in the top bar): who they are, their
// roles, and under FI_AUTH=local a form to change their password. The password rule is the server's
// (auth/password_policy.py): this page checks only that the new password was typed the same twice. The brief by
// mail (an address, weekly / daily / never, the mail's language) is the person's own choice: /auth/me/mail.
import { getJson, request } from "./api.js";
import { applyStatic, initialLanguage, translator } from "./i18n.js";
import { refusalText } from "./problems.js";

const byId = (id) => document.getElementById(id);
const state = { t: translator(initialLanguage()), me: null };

function setLanguage(language) {
  state.t = translator(language);
  applyStatic(document, state.t);
  document.title = `${state.t("account.title")} — ${state.t("app.name")}`;
  if (state.me) showAccount(state.me);
}

function grantText(grant) {
  const t = state.t;
  const role = t.has(`account.role.${grant.role}`) ? t(`account.role.${grant.role}`) : grant.role;
  return grant.store === "*" ? t("account.grantChain", { role }) : t("account.grantStore", { role, store: grant.store });
}

function showAccount(me) {
  const t = state.t;
  byId("account-who").textContent = t("account.signedInAs", { name: me.displayName || me.username, username: me.username });
  byId("account-roles").textContent = me.grants.length
    ? t("account.roles", { list: me.grants.map(grantText).join(", ") })
    : t("account.noRoles");
  byId("account-box").hidden = false;
  byId("password-box").hidden = false;
  const local = me.auth === "local";
  byId("password-form").hidden = !local;
  byId("password-elsewhere").hidden = local;
  byId("password-username").value = me.username;
  if (me.passwordRule) {
    byId("password-hint").textContent = t("password.hint", {
      min: me.passwordRule.minLength,
      recommended: me.passwordRule.recommendedLength,
    });
  }
}

function say(text, kind) {
  const box = byId("password-message");
  box.textContent = text;
  box.dataset.kind = kind;
}

async function changePassword(event) {
  event.preventDefault();
  const t = state.t;
  const fresh = byId("password-new").value;
  if (fresh !== byId("password-repeat").value) {
    say(t("password.mismatch"), "error");
    byId("password-repeat").focus();
    return;
  }
  const button = byId("password-btn");
  button.disabled = true;
  say("", "");
  try {
    const response = await request("/auth/password", {
      method: "POST",
      body: { currentPassword: byId("password-current").value, newPassword: fresh },
    });
    if (response.ok) {
      const body = await response.json();
      say(t("password.changed", { n: body.sessionsEnded }), "ok");
      byId("password-form").reset();
    } else if (response.status === 403) {
      say(t("password.wrong"), "error");
      byId("password-current").focus();
    } else if (response.status === 429) {
      const body = await response.json().catch(() => ({}));
      say(t("password.throttled", { n: body.retryAfterSeconds || 60 }), "error");
    } else if (response.status === 401) {
      location.assign("/signin?next=/account");
    } else if (response.status === 400) {
      say(await refusalText(response, t), "error");
      byId("password-new").focus();
    } else {
      say(t("password.failed", { status: response.status }), "error");
    }
  } catch {
    say(t("password.network"), "error");
  } finally {
    button.disabled = false;
  }
}

function sayBrief(text, kind) {
  const box = byId("brief-message");
  box.textContent = text;
  box.dataset.kind = kind;
}

function showBrief(choice) {
  byId("brief-email").value = choice.email || "";
  byId("brief-when").value = choice.briefMail || "";
  byId("brief-language").value = choice.language || "";
  byId("brief-box").hidden = false;
}

async function saveBrief(event) {
  event.preventDefault();
  const t = state.t;
  const button = byId("brief-btn");
  button.disabled = true;
  sayBrief("", "");
  try {
    const response = await request("/auth/me/mail", {
      method: "PATCH",
      body: {
        email: byId("brief-email").value.trim() || null,
        briefMail: byId("brief-when").value || null,
        language: byId("brief-language").value || null,
      },
    });
    if (response.ok) {
      const choice = await response.json();
      showBrief(choice);
      sayBrief(t(choice.briefMail ? `briefMail.saved.${choice.briefMail}` : "briefMail.saved.off"), "ok");
    } else if (response.status === 401) {
      location.assign("/signin?next=/account");
    } else if (response.status === 400) {
      sayBrief(await refusalText(response, t), "error");
      byId("brief-email").focus();
    } else {
      sayBrief(t("briefMail.failed", { status: response.status }), "error");
    }
  } catch {
    sayBrief(t("briefMail.network"), "error");
  } finally {
    button.disabled = false;
  }
}

async function start() {
  setLanguage(state.t.lang);
  // The language follows the domain (/schema), as on the desk and the report; the browser's until it answers.
  const [me, schema] = await Promise.allSettled([getJson("/auth/me"), getJson("/schema")]);
  if (schema.status === "fulfilled" && schema.value.language) setLanguage(schema.value.language);
  if (me.status !== "fulfilled") {
    byId("account-status").textContent = state.t("account.serverAway");
    return;
  }
  if (!me.value.signedIn) {
    byId("account-status").textContent = state.t("account.notSignedIn");
    location.assign("/signin?next=/account");
    return;
  }
  state.me = me.value;
  showAccount(state.me);
  const choice = await getJson("/auth/me/mail").catch(() => null);
  if (choice) showBrief(choice);
}

byId("password-form").addEventListener("submit", changePassword);
byId("brief-form").addEventListener("submit", saveBrief);
start();
