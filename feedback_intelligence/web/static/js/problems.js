// A server's refusal in the page's language. A 400/413 body carries `codes` next to its English
// `errors`; the page translates the codes and never shows the English text to a clerk.

/** One code ({code, field?, limit?, length?}) as a sentence; an unknown code still reads as a sentence. */
export function translateProblem(problem, t) {
  const field = problem.field && t.has(`field.${problem.field}`) ? t(`field.${problem.field}`) : problem.field || "";
  const key = `err.${problem.code}`;
  return t.has(key) ? t(key, { ...problem, field }) : t("err.invalid", { field });
}

/** The translated reasons of a refusal, or the generic sentence with its status. */
export async function refusalText(response, t) {
  let body = null;
  try {
    body = await response.clone().json();
  } catch {
    body = null;
  }
  const codes = body && Array.isArray(body.codes) ? body.codes : [];
  const sentences = [...new Set(codes.filter((c) => c && typeof c.code === "string").map((c) => translateProblem(c, t)))];
  return sentences.length ? sentences.join(" ") : t("err.unknown", { status: response.status });
}
