// Who is signed in, shown in the page's top bar with a sign-out button (FI_AUTH other than none).
import { getJson, request } from "./api.js";

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
  const who = document.createElement("span");
  who.className = "session-name";
  who.id = "session-name";
  who.textContent = me.displayName || me.username;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "btn";
  button.id = "signout-btn";
  button.textContent = "Kirjaudu ulos";
  button.addEventListener("click", async () => {
    await request("/auth/signout", { method: "POST" }).catch(() => null);
    location.assign("/signin");
  });
  nav.append(who, button);
}

showSession();
