// Who is signed in, shown in the page's top bar (FI_AUTH other than none): their name, a link to their
// own page (/account: roles, password), and a sign-out button.
import { getJson, request } from "./api.js";
import { translator } from "./i18n.js";

async function showSession() {
  let me;
  try {
    me = await getJson("/auth/me");
  } catch {
    return; // the page's own status line says when the server is away
  }
  if (!me.signedIn) return;
  const nav = document.querySelector(".topnav");
  if (!nav) return;
  // The page's language as far as it knows it yet; a later language switch (applyStatic) re-reads data-i18n.
  const t = translator(document.documentElement.lang);
  const who = document.createElement("a");
  who.className = "session-name";
  who.id = "session-name";
  who.href = "/account";
  who.textContent = me.displayName || me.username;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn";
  button.id = "signout-btn";
  button.dataset.i18n = "session.signOut";
  button.textContent = t("session.signOut");
  button.addEventListener("click", async () => {
    await request("/auth/signout", { method: "POST" }).catch(() => null);
    location.assign("/signin");
  });
  nav.append(who, button);
}

showSession();
