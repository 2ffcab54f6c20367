// UI text in Finnish and English. The language follows the domain (/schema `language`) or the
// report's `language`; anything else falls back to English. Values are plain strings with {name}
// placeholders, or functions of the parameters where a count changes the wording.

const plural = (one, many) => (p) => (p.n === 1 ? one : many).replace("{n}", String(p.n));

const en = {
  "app.name": "Feedback Intelligence",
  "nav.toReport": "Report",
  "nav.toDesk": "Feedback desk",
  "nav.main": "Pages",

  "desk.title": "Feedback desk",
  "desk.lead": "Type what the customer said, let the model suggest the fields, check them and save.",
  "status.connecting": "Connecting to the server…",
  "status.schemaRetry": "The server is not answering — trying again every few seconds.",
  "status.ready": "Connected.",

  "entry.heading": "New feedback",
  "entry.label": "What did the customer say?",
  "entry.hint": "In the customer's own words. Names and contact details are not needed.",
  "entry.counter": "{n} / {max} characters",
  "entry.tooLong": (p) => `${p.over === 1 ? "1 character" : `${p.over} characters`} longer than the model reads (${p.max}). Nothing has been cut: shorten it to interpret it, fill in the fields by hand, or save it now — the model then reads only its first ${p.max} characters, and the entry says so.`,
  "entry.tooLongToStore": (p) => `${p.over === 1 ? "1 character" : `${p.over} characters`} too many to save (at most ${p.max}). Shorten the text — nothing has been cut.`,
  "entry.counterLong": "{n} / {max} characters — longer than the model reads",
  "entry.counterOver": "{n} / {max} characters — too long",
  "entry.interpret": "Interpret",
  "entry.manual": "Fill in by hand",
  "entry.later": "Save, interpret later",
  "later.saved": "Saved ✓ The model interprets it later; it appears below.",
  "later.savedLong": "Saved whole ✓ The model interprets its first {max} characters later; it appears below.",
  "later.busy": "Saving did not succeed right now (the server is busy). The text is kept — try again in a moment.",
  "later.heading": "Saved for later interpretation",
  "later.pending": "interpreted later",
  "later.ready": "interpreted — check it",
  "later.failed": "the model could not interpret it — fields by rule",
  "entry.waitServer": "Waiting for the server…",

  "msg.empty": "Write the feedback first.",
  "msg.working": "Interpreting…",
  "msg.retrying": "The model is busy — still trying in the background ({n}/{max}). You can also fill in the fields by hand or save now and have it interpreted later.",
  "msg.busy": "The model is busy right now. Try again in a moment, or fill in the fields by hand.",
  "msg.unavailable": "The language model is not answering. Fill in the fields by hand — the feedback is saved all the same.",
  "msg.rateLimited": "Too many requests in a short time. Wait a moment before trying again.",
  "msg.network": "No connection to the server. Check the network and try again.",
  "msg.failed": "The interpretation did not succeed (error {status}).",
  "msg.rejected": "The server did not accept this: {detail}",
  "msg.modelFailed": "The model could not read this one. Fill in the fields by hand.",
  "msg.interpreted": "Check the fields. Change whatever is wrong, then save.",
  "msg.manual": "Fill in the fields, then save.",
  "msg.proposal": "The fields are filled in by the rules, without the model. Check them, correct what is wrong, then save.",
  "msg.modelFailedProposal": "The model could not read this one, so the rules filled in the fields. Check them, then save.",
  "guard.fromRules": "Suggested by the rules",
  "guard.why": "The model's suggestion was not used: {reason}.",
  "guard.reason.prompt_echo": "it repeats the instructions given to the model, not the feedback",
  "guard.reason.control_characters": "it contains hidden control characters",
  "guard.reason.empty": "the model left it empty",
  "guard.reason.repeated_word": "it repeats the same word over and over",
  "guard.reason.mixed_case": "its letters are garbled (capitals inside a word)",
  "guard.reason.not_grounded": "it has nothing to do with the words of the feedback",
  "guard.reason.slug": "its words are joined by underscores",
  "guard.reason.fragment": "it is a piece of a sentence, not a name for the topic",
  "guard.reason.other_language": "it is in another language than the feedback",
  "guard.reason.generic": "a word this general names no topic",
  "guard.reason.not_iso639_1": "it is not a real language code",
  "guard.reason.contradicts_text": "the text is clearly written in another language",
  "guard.reason.unexpected_language": "the text does not look like that language",
  "guard.reason.contradicts_cues": "the words of the feedback point clearly to another type",
  "guard.reason.below_alert": "the feedback mentions something that is always at least this serious",
  "guard.reason.contradicts_type": "it does not fit the type of the feedback",
  "guard.reason.missing": "the model left it empty",
  "guard.reason.alert_category": "the feedback contains alert words that decide this",
  "guard.reason.vulgarity": "the feedback is mostly swearing",
  "guard.reason.keyword_evidence": "the words of the feedback point clearly to another choice",
  "guard.reason.other": "it did not pass a check ({code})",

  "err.text_empty": "The feedback text is empty.",
  "err.text_too_long": "The text has {length} characters; at most {limit} fit.",
  "err.source_unknown": "The source of the entry is not one this service accepts.",
  "err.timestamp_invalid": "The time of the entry is not valid.",
  "err.id_invalid": "The entry's identifier is not valid. Reload the page and try again.",
  "err.value_not_in_taxonomy": "The value chosen for {field} is not in the list. Reload the page and choose again.",
  "err.field_empty": "{field} cannot be empty.",
  "err.field_missing": "Something is missing from the entry ({field}). Reload the page and try again.",
  "err.field_invalid": "Something in the entry is not valid ({field}). Reload the page and try again.",
  "err.corrections_need_structure": "The corrections do not fit the entry. Reload the page and enter it again.",
  "err.corrections_with_model_failed": "The corrections do not fit the entry. Reload the page and enter it again.",
  "err.correction_field_unknown": "The corrections do not fit the entry. Reload the page and enter it again.",
  "err.later_with_structure": "The entry was sent in two ways at once. Reload the page and enter it again.",
  "err.body_not_json": "The page sent something the server could not read. Reload the page and try again.",
  "err.body_not_object": "The page sent something the server could not read. Reload the page and try again.",
  "err.body_too_large": "The entry is too large to send.",
  "err.window_invalid": "The period is not valid.",
  "err.invalid": "Something in the entry is not valid ({field}).",
  "err.unknown": "The server refused it (error {status}).",

  "form.heading": "Interpretation",
  "form.manualHeading": "Fields by hand",
  "field.category": "Category",
  "field.theme": "Theme",
  "field.severity": "Severity",
  "field.type": "Type",
  "field.sentiment": "Tone",
  "field.language": "Language",
  "field.choose": "— choose —",
  "field.model": "Model suggested: {value}",
  "field.corrected": "Corrected",
  "field.restore": "Undo",
  "field.restoreLabel": "Put back the model's value for {field}",
  "form.alerts": "Alert words found: {list}",
  "form.save": "Save",
  "form.cancel": "Cancel",

  "save.saving": "Saving…",
  "save.chooseCategory": "Choose the {field} before saving.",
  "save.missing": "Some choices are missing. Reload the page and try again.",
  "save.themeEmpty": "The theme cannot be empty.",
  "save.busy": "The server is busy. Press Save again in a moment.",
  "save.ok": "Saved ✓ Thank you!",
  "save.dup": "Saved ✓ (it was already stored)",
  "save.failed": "Saving failed (error {status}).",
  "save.rejected": "The server did not accept the entry: {detail}",
  "save.network": "The connection dropped, so it is not certain the entry was saved. Press Save again — it will not be stored twice.",

  "live.heading": "Situation now",
  "live.window": "Desk entries of the last 7 days",
  "live.totals": (p) =>
    `${p.n === 1 ? "1 entry" : `${p.n} entries`}` + (p.m ? ` · ${p.m} without a structure (interpretation failed)` : ""),
  "live.empty": "No entries yet — the first one you save appears here.",
  "live.pending": "The summary is being written…",
  "live.reportFailed": "The summary could not be refreshed — the entries below are up to date.",
  "live.unavailable": "The situation view is not available — the server is not answering.",
  "live.updated": "Updated {time}",
  "live.summary": "Summary",

  "alerts.heading": "Alerts ({n})",
  "alerts.none": "No alerts in this period.",
  "alerts.keyword": "Keyword match",
  "alerts.model": "Language model",
  "alerts.show": "Show message",

  "narrative.model": "Written by the language model",
  "narrative.auto": "Automated summary",
  "narrative.pending": "Writing the summary…",
  "narrative.why": "No model summary: {reason}.",
  "reason.no_model": "no language model is configured",
  "reason.budget": "the language model's share for this report was used up",
  "reason.busy": "the language model was busy serving the desk",
  "reason.unavailable": "the language model could not be reached",
  "reason.failed": "the language model's answer failed",
  "reason.unparseable": "the language model's answer was unreadable",
  "reason.empty": "the language model's answer was empty",
  "reason.ungrounded": "the language model's text cited feedback outside this theme",
  "reason.directive": "the language model's text gave orders instead of describing",
  "reason.repetition": "the language model's text repeated itself",
  "reason.echo": "the language model's text repeated its instructions",
  "reason.language": "the language model's text was in the wrong language",
  "reason.no_citations": "the language model's text cited no feedback",
  "reason.too_short": "the language model's text was too short",
  "reason.too_long": "the language model's text was too long",
  "section.count": plural("1 entry", "{n} entries"),
  "section.trend": "trend: {label}",
  "section.flagged": (p) => `⚠ ${p.n} to check — possibly manipulated, still counted`,
  "section.show": plural("Show the message", "Show {n} messages"),
  "section.moderation": "Content to moderate ({n})",
  "section.more": plural("1 more entry", "{n} more entries"),
  "item.review": "⚠ check",
  "item.noStructure": "no structure",
  "item.source": "Source: {source}",

  "kpi.entries": "Entries",
  "kpi.review": "To check ⚠",
  "kpi.trend": "Trend",
  "chart.sections": "Entries by {field}",
  "chart.severity": "Severity",
  "chart.sentiment": "Tone",
  "chart.more": "{n} more",

  "report.title": "Feedback report",
  "window.label": "Period",
  "window.today": "Today",
  "window.d7": "Last 7 days",
  "window.d30": "Last 30 days",
  "window.custom": "Custom period",
  "window.from": "From",
  "window.to": "To",
  "window.refresh": "Refresh",
  "window.needDates": "Pick both dates for a custom period.",
  "window.order": "The start date must not be after the end date.",
  "badge.live": "Live",
  "badge.snapshot": "Saved snapshot",
  "status.snapshotFirst": "Showing the saved snapshot of {time} while the current report is compiled…",
  "status.compiling": "Compiling the report…",
  "status.writing": plural("The report is up to date; the language model is writing 1 summary…",
    "The report is up to date; the language model is writing {n} summaries…"),
  "status.screening": "The report is up to date; the language model is checking messages for alerts the keywords "
    + "missed: {screened} of {candidates} checked, {confirmed} added…",
  "prose.automatic": "The summaries are automatic: the language model this service runs (the small embedded one) "
    + "does not write usable summaries. For summaries written by a language model, run the service with a larger "
    + "model (FI_LLM_BACKEND=ollama or openai; see the README).",
  "series.headingDay": "Feedback per day, beside the previous period",
  "series.headingWeek": "Feedback per week, beside the previous period",
  "series.note": "Bars: this period; dashed line: the previous period of the same length (from {from}). Days in "
    + "{zone}. A change counts as significant when it reaches the trend rule's limit with at least {min} items.",
  "series.totals": "now {now} · before {before}",
  "series.change": "Change {change}{pct} · z {z} (limit {threshold}):",
  "series.significant": "significant",
  "series.notSignificant": "not significant",
  "export.print": "Print",
  "export.csv": "Download CSV",
  "print.head": "Feedback report · printed {time} · times in {zone}",
  "filters.heading": "Filters and search",
  "filters.all": "All",
  "filters.category": "Department",
  "filters.severity": "Severity",
  "filters.type": "Type",
  "filters.sentiment": "Sentiment",
  "filters.source": "Source",
  "filters.store": "Store",
  "filters.q": "Search the texts",
  "filters.notApplied": "This server does not narrow the report by these filters yet: the figures cover all feedback "
    + "of the period.",
  "status.live": "The report is up to date.",
  "status.fallback": "The server did not deliver the report — showing the saved snapshot of {time}.",
  "status.nothing": "No report and no saved snapshot yet. Check the connection and press Refresh.",
  "status.badWindow": "The server refused the period: {detail}",
  "meta.window": "{from} – {to}",
  "meta.items": plural("1 entry", "{n} entries"),
  "meta.unstructured": "{n} without a structure",
  "meta.truncated": "only the newest {n} of {m} included",
  "meta.truncatedUnknown": "only the newest {n} included",
  "meta.dropped": plural("1 unsupported claim removed", "{n} unsupported claims removed"),
  "meta.actions": plural("1 instruction removed from a summary", "{n} instructions removed from summaries"),
  "meta.fallbacks": plural("1 summary written without the model", "{n} summaries written without the model"),
  "meta.review": "{n} to check",
  "themes.heading": "Themes and trends ({n})",
  "themes.none": "No structured entries in this period.",
  "dialog.close": "Close",
  "dialog.sources": "{title} — messages",

  "severity.low": "Low",
  "severity.medium": "Medium",
  "severity.high": "High",
  "severity.critical": "Critical",
  "severity.unknown": "Unknown",
  "sentiment.positive": "Positive",
  "sentiment.negative": "Negative",
  "sentiment.neutral": "Neutral",
  "source.google_review": "Google review",
  "source.email": "Email",
  "source.web_form": "Web form",
  "source.desk": "Desk",
  "alert.injury_safety": "injury or safety",
  "alert.payment": "payment",
  "alert.legal_threat": "legal threat",
  "alert.rasismi": "racism",
  "alert.data_loss": "data loss",
  "alert.security_account": "account security",
  "alert.payment_failure": "payment failure",
  "alert.blocking_bug": "blocking bug",
  "meta.generated": "compiled {time}",
};

const fi = {
  "app.name": "Feedback Intelligence",
  "nav.toReport": "Raportti",
  "nav.toDesk": "Palautepiste",
  "nav.main": "Sivut",

  "desk.title": "Palautepiste",
  "desk.lead": "Kirjoita, mitä asiakas sanoi, anna mallin ehdottaa kentät, tarkista ne ja tallenna.",
  "status.connecting": "Yhdistetään palvelimeen…",
  "status.schemaRetry": "Palvelin ei vastaa — yritetään uudelleen muutaman sekunnin välein.",
  "status.ready": "Yhteys toimii.",

  "entry.heading": "Uusi palaute",
  "entry.label": "Mitä asiakas sanoi?",
  "entry.hint": "Asiakkaan omin sanoin. Nimiä tai yhteystietoja ei tarvita.",
  "entry.counter": "{n} / {max} merkkiä",
  "entry.tooLong": (p) => `${p.over === 1 ? "1 merkki" : `${p.over} merkkiä`} pidempi kuin kielimalli lukee (${p.max}). Mitään ei ole leikattu pois: lyhennä teksti tulkintaa varten, täytä kentät itse tai tallenna nyt — malli lukee silloin vain alun ${p.max} merkkiä, ja merkintään kirjataan se.`,
  "entry.tooLongToStore": (p) => `${p.over === 1 ? "1 merkki" : `${p.over} merkkiä`} liikaa tallennettavaksi (enintään ${p.max}). Lyhennä tekstiä — mitään ei ole leikattu pois.`,
  "entry.counterLong": "{n} / {max} merkkiä — pidempi kuin malli lukee",
  "entry.counterOver": "{n} / {max} merkkiä — liian pitkä",
  "entry.interpret": "Tulkitse",
  "entry.manual": "Täytä itse",
  "entry.later": "Tallenna, tulkitaan myöhemmin",
  "later.saved": "Tallennettu ✓ Malli tulkitsee sen myöhemmin; se näkyy alla.",
  "later.savedLong": "Tallennettu kokonaan ✓ Malli tulkitsee myöhemmin sen alun {max} merkkiä; se näkyy alla.",
  "later.busy": "Tallennus ei juuri nyt onnistunut (palvelin on varattu). Teksti on tallessa — yritä hetken päästä.",
  "later.heading": "Tallennettu, tulkitaan myöhemmin",
  "later.pending": "tulkitaan myöhemmin",
  "later.ready": "tulkittu — tarkista",
  "later.failed": "malli ei saanut selvää — kentät sääntöjen mukaan",
  "entry.waitServer": "Odotetaan palvelinta…",

  "msg.empty": "Kirjoita palaute ensin.",
  "msg.working": "Tulkitaan…",
  "msg.retrying": "Malli on varattu — yritetään taustalla uudelleen ({n}/{max}). Voit myös täyttää kentät itse tai tallentaa nyt ja tulkita myöhemmin.",
  "msg.busy": "Kielimalli on juuri nyt varattu. Yritä hetken päästä uudelleen tai täytä kentät itse.",
  "msg.unavailable": "Kielimalli ei vastaa. Täytä kentät itse — palaute tallentuu silti.",
  "msg.rateLimited": "Liian monta pyyntöä lyhyessä ajassa. Odota hetki ennen uutta yritystä.",
  "msg.network": "Palvelimeen ei saada yhteyttä. Tarkista verkko ja yritä uudelleen.",
  "msg.failed": "Tulkinta ei onnistunut (virhe {status}).",
  "msg.rejected": "Palvelin ei hyväksynyt tätä: {detail}",
  "msg.modelFailed": "Malli ei saanut tästä selvää. Täytä kentät itse.",
  "msg.interpreted": "Tarkista kentät. Korjaa väärät ja tallenna.",
  "msg.manual": "Täytä kentät ja tallenna.",
  "msg.proposal": "Säännöt täyttivät kentät ilman kielimallia. Tarkista ne, korjaa väärät ja tallenna.",
  "msg.modelFailedProposal": "Malli ei saanut tästä selvää, joten säännöt täyttivät kentät. Tarkista ne ja tallenna.",
  "guard.fromRules": "Ehdotus säännöistä",
  "guard.why": "Mallin ehdotusta ei käytetty: {reason}.",
  "guard.reason.prompt_echo": "se toistaa mallille annettuja ohjeita eikä palautetta",
  "guard.reason.control_characters": "siinä on piilotettuja ohjausmerkkejä",
  "guard.reason.empty": "malli jätti sen tyhjäksi",
  "guard.reason.repeated_word": "se toistaa samaa sanaa yhä uudelleen",
  "guard.reason.mixed_case": "sen kirjaimet ovat sekaisin (isoja kirjaimia keskellä sanaa)",
  "guard.reason.not_grounded": "sillä ei ole mitään tekemistä palautteen sanojen kanssa",
  "guard.reason.slug": "sen sanat on yhdistetty alaviivoilla",
  "guard.reason.fragment": "se on pala lausetta eikä aiheen nimi",
  "guard.reason.other_language": "se on eri kieltä kuin palaute",
  "guard.reason.generic": "näin yleinen sana ei nimeä aihetta",
  "guard.reason.not_iso639_1": "se ei ole oikea kielikoodi",
  "guard.reason.contradicts_text": "teksti on selvästi kirjoitettu toisella kielellä",
  "guard.reason.unexpected_language": "teksti ei näytä olevan sitä kieltä",
  "guard.reason.contradicts_cues": "palautteen sanat viittaavat selvästi toiseen tyyppiin",
  "guard.reason.below_alert": "palautteessa mainitaan asia, joka on aina vähintään näin vakava",
  "guard.reason.contradicts_type": "se ei sovi palautteen tyyppiin",
  "guard.reason.missing": "malli jätti sen tyhjäksi",
  "guard.reason.alert_category": "palautteessa on hälytyssanoja, jotka ratkaisevat tämän",
  "guard.reason.vulgarity": "palaute on enimmäkseen kiroilua",
  "guard.reason.keyword_evidence": "palautteen sanat viittaavat selvästi toiseen vaihtoehtoon",
  "guard.reason.other": "se ei läpäissyt tarkistusta ({code})",

  "err.text_empty": "Palauteteksti on tyhjä.",
  "err.text_too_long": "Tekstissä on {length} merkkiä; enintään {limit} mahtuu.",
  "err.source_unknown": "Merkinnän lähde ei ole palvelun hyväksymä.",
  "err.timestamp_invalid": "Merkinnän aika ei kelpaa.",
  "err.id_invalid": "Merkinnän tunniste ei kelpaa. Lataa sivu uudelleen ja yritä uudestaan.",
  "err.value_not_in_taxonomy": "Kenttään {field} valittu arvo ei ole listalla. Lataa sivu uudelleen ja valitse uudestaan.",
  "err.field_empty": "{field} ei voi olla tyhjä.",
  "err.field_missing": "Merkinnästä puuttuu jotain ({field}). Lataa sivu uudelleen ja yritä uudestaan.",
  "err.field_invalid": "Merkinnässä on jotain virheellistä ({field}). Lataa sivu uudelleen ja yritä uudestaan.",
  "err.corrections_need_structure": "Korjaukset eivät sovi merkintään. Lataa sivu uudelleen ja kirjaa se uudestaan.",
  "err.corrections_with_model_failed": "Korjaukset eivät sovi merkintään. Lataa sivu uudelleen ja kirjaa se uudestaan.",
  "err.correction_field_unknown": "Korjaukset eivät sovi merkintään. Lataa sivu uudelleen ja kirjaa se uudestaan.",
  "err.later_with_structure": "Merkintä lähetettiin kahdella tavalla yhtä aikaa. Lataa sivu uudelleen ja kirjaa se uudestaan.",
  "err.body_not_json": "Sivu lähetti jotain, mitä palvelin ei pystynyt lukemaan. Lataa sivu uudelleen ja yritä uudestaan.",
  "err.body_not_object": "Sivu lähetti jotain, mitä palvelin ei pystynyt lukemaan. Lataa sivu uudelleen ja yritä uudestaan.",
  "err.body_too_large": "Merkintä on liian suuri lähetettäväksi.",
  "err.window_invalid": "Aikaväli ei kelpaa.",
  "err.invalid": "Merkinnässä on jotain virheellistä ({field}).",
  "err.unknown": "Palvelin ei hyväksynyt sitä (virhe {status}).",

  "form.heading": "Tulkinta",
  "form.manualHeading": "Kentät käsin",
  "field.category": "Osasto",
  "field.theme": "Aihe",
  "field.severity": "Vakavuus",
  "field.type": "Tyyppi",
  "field.sentiment": "Sävy",
  "field.language": "Kieli",
  "field.choose": "— valitse —",
  "field.model": "Mallin ehdotus: {value}",
  "field.corrected": "Korjattu",
  "field.restore": "Kumoa",
  "field.restoreLabel": "Palauta mallin arvo kenttään {field}",
  "form.alerts": "Hälytyssanoja: {list}",
  "form.save": "Tallenna",
  "form.cancel": "Peruuta",

  "save.saving": "Tallennetaan…",
  "save.chooseCategory": "Valitse {field} ennen tallentamista.",
  "save.missing": "Valintoja puuttuu. Lataa sivu uudelleen ja yritä taas.",
  "save.themeEmpty": "Aihe ei voi olla tyhjä.",
  "save.busy": "Palvelin on kiireinen. Paina Tallenna hetken päästä uudelleen.",
  "save.ok": "Tallennettu ✓ Kiitos!",
  "save.dup": "Tallennettu ✓ (oli jo tallessa)",
  "save.failed": "Tallennus epäonnistui (virhe {status}).",
  "save.rejected": "Palvelin ei hyväksynyt merkintää: {detail}",
  "save.network": "Yhteys katkesi, joten tallennus jäi epävarmaksi. Paina Tallenna uudelleen — merkintä ei tallennu kahdesti.",

  "live.heading": "Tilanne nyt",
  "live.window": "Palautepisteen merkinnät viimeiseltä 7 päivältä",
  "live.totals": (p) =>
    `${p.n === 1 ? "1 merkintä" : `${p.n} merkintää`}` + (p.m ? ` · ${p.m} ilman rakennetta (tulkinta epäonnistui)` : ""),
  "live.empty": "Ei vielä merkintöjä — ensimmäinen tallentamasi näkyy tässä.",
  "live.pending": "Yhteenvetoa kirjoitetaan…",
  "live.reportFailed": "Yhteenvetoa ei saatu päivitettyä — alla olevat merkinnät ovat ajan tasalla.",
  "live.unavailable": "Tilannenäkymä ei ole saatavilla — palvelin ei vastaa.",
  "live.updated": "Päivitetty {time}",
  "live.summary": "Yhteenveto",

  "alerts.heading": "Hälytykset ({n})",
  "alerts.none": "Ei hälytyksiä tällä aikavälillä.",
  "alerts.keyword": "Sanahaku",
  "alerts.model": "Kielimalli",
  "alerts.show": "Näytä viesti",

  "narrative.model": "Kielimallin kirjoittama",
  "narrative.auto": "Automaattinen kooste",
  "narrative.pending": "kirjoitetaan yhteenvetoa…",
  "narrative.why": "Ei kielimallin yhteenvetoa: {reason}.",
  "reason.no_model": "kielimallia ei ole käytössä",
  "reason.budget": "kielimallin osuus tästä raportista käytettiin loppuun",
  "reason.busy": "kielimalli palveli juuri palautetiskiä",
  "reason.unavailable": "kielimalliin ei saatu yhteyttä",
  "reason.failed": "kielimallin vastaus epäonnistui",
  "reason.unparseable": "kielimallin vastausta ei voitu lukea",
  "reason.empty": "kielimallin vastaus oli tyhjä",
  "reason.ungrounded": "kielimallin teksti viittasi muihin kuin tämän teeman palautteisiin",
  "reason.directive": "kielimallin teksti antoi ohjeita kuvailun sijaan",
  "reason.repetition": "kielimallin teksti toisti itseään",
  "reason.echo": "kielimallin teksti toisti sille annettuja ohjeita",
  "reason.language": "kielimallin teksti oli väärällä kielellä",
  "reason.no_citations": "kielimallin teksti ei viitannut yhteenkään palautteeseen",
  "reason.too_short": "kielimallin teksti oli liian lyhyt",
  "reason.too_long": "kielimallin teksti oli liian pitkä",
  "section.count": plural("1 merkintä", "{n} merkintää"),
  "section.trend": "suunta: {label}",
  "section.flagged": (p) => `⚠ ${p.n} tarkistettavaa — mahdollisesti manipuloitu, mukana luvuissa`,
  "section.show": plural("Näytä viesti", "Näytä {n} viestiä"),
  "section.moderation": "Moderoitava sisältö ({n})",
  "section.more": plural("1 merkintä lisää", "{n} merkintää lisää"),
  "item.review": "⚠ tarkista",
  "item.noStructure": "ei rakennetta",
  "item.source": "Lähde: {source}",

  "kpi.entries": "Merkinnät",
  "kpi.review": "Tarkistettavat ⚠",
  "kpi.trend": "Suunta",
  "chart.sections": "Merkinnät: {field}",
  "chart.severity": "Vakavuus",
  "chart.sentiment": "Sävy",
  "chart.more": "{n} muuta",

  "report.title": "Palauteraportti",
  "window.label": "Aikaväli",
  "window.today": "Tänään",
  "window.d7": "7 päivää",
  "window.d30": "30 päivää",
  "window.custom": "Oma aikaväli",
  "window.from": "Alkaen",
  "window.to": "Asti",
  "window.refresh": "Päivitä",
  "window.needDates": "Valitse oman aikavälin molemmat päivät.",
  "window.order": "Alkupäivä ei voi olla loppupäivän jälkeen.",
  "badge.live": "Ajantasainen",
  "badge.snapshot": "Tallennettu tilannekuva",
  "status.snapshotFirst": "Näytetään tallennettu tilannekuva ({time}), kun ajantasaista raporttia kootaan…",
  "status.compiling": "Raporttia kootaan…",
  "status.writing": plural("Raportti on ajan tasalla; kielimalli kirjoittaa vielä yhtä yhteenvetoa…",
    "Raportti on ajan tasalla; kielimalli kirjoittaa vielä {n} yhteenvetoa…"),
  "status.screening": "Raportti on ajan tasalla; kielimalli tarkistaa vielä, onko viesteissä hälytyksiä, joita "
    + "avainsanat eivät löytäneet: {screened}/{candidates} tarkistettu, {confirmed} lisätty…",
  "prose.automatic": "Yhteenvedot ovat automaattisia: tämän palvelun kielimalli (pieni sulautettu malli) ei kirjoita "
    + "käyttökelpoisia yhteenvetoja. Kielimallin kirjoittamat yhteenvedot saa käyttöön ajamalla palvelua isommalla "
    + "mallilla (FI_LLM_BACKEND=ollama tai openai; ks. README).",
  "series.headingDay": "Palautteet päivittäin edelliseen jaksoon verrattuna",
  "series.headingWeek": "Palautteet viikoittain edelliseen jaksoon verrattuna",
  "series.note": "Pylväät: tämä jakso; katkoviiva: yhtä pitkä edellinen jakso (alkaen {from}). Päivät aikavyöhykkeellä "
    + "{zone}. Muutos on merkitsevä, kun se ylittää trendisäännön rajan ja palautteita on vähintään {min}.",
  "series.totals": "nyt {now} · ennen {before}",
  "series.change": "Muutos {change}{pct} · z {z} (raja {threshold}):",
  "series.significant": "merkitsevä",
  "series.notSignificant": "ei merkitsevä",
  "export.print": "Tulosta",
  "export.csv": "Lataa CSV",
  "print.head": "Palauteraportti · tulostettu {time} · ajat aikavyöhykkeellä {zone}",
  "filters.heading": "Suodattimet ja haku",
  "filters.all": "Kaikki",
  "filters.category": "Osasto",
  "filters.severity": "Vakavuus",
  "filters.type": "Tyyppi",
  "filters.sentiment": "Sävy",
  "filters.source": "Lähde",
  "filters.store": "Myymälä",
  "filters.q": "Hae teksteistä",
  "filters.notApplied": "Tämä palvelin ei vielä rajaa raporttia näillä suodattimilla: luvut koskevat kaikkea "
    + "aikavälin palautetta.",
  "status.live": "Raportti on ajan tasalla.",
  "status.fallback": "Palvelin ei toimittanut raporttia — näytetään tallennettu tilannekuva ({time}).",
  "status.nothing": "Raporttia tai tallennettua tilannekuvaa ei ole vielä. Tarkista yhteys ja paina Päivitä.",
  "status.badWindow": "Palvelin ei hyväksynyt aikaväliä: {detail}",
  "meta.window": "{from} – {to}",
  "meta.items": plural("1 merkintä", "{n} merkintää"),
  "meta.unstructured": "{n} ilman rakennetta",
  "meta.truncated": "mukana vain uusimmat {n}/{m}",
  "meta.truncatedUnknown": "mukana vain uusimmat {n}",
  "meta.dropped": plural("1 perusteeton väite poistettu", "{n} perusteetonta väitettä poistettu"),
  "meta.actions": plural("1 toimintaohje poistettu tiivistelmästä", "{n} toimintaohjetta poistettu tiivistelmistä"),
  "meta.fallbacks": plural("1 tiivistelmä ilman kielimallia", "{n} tiivistelmää ilman kielimallia"),
  "meta.review": "{n} tarkistettavaa",
  "themes.heading": "Teemat ja trendit ({n})",
  "themes.none": "Tällä aikavälillä ei ole rakenteistettuja merkintöjä.",
  "dialog.close": "Sulje",
  "dialog.sources": "{title} — viestit",

  "severity.low": "Matala",
  "severity.medium": "Keskitaso",
  "severity.high": "Korkea",
  "severity.critical": "Kriittinen",
  "severity.unknown": "Tuntematon",
  "sentiment.positive": "Myönteinen",
  "sentiment.negative": "Kielteinen",
  "sentiment.neutral": "Neutraali",
  "source.google_review": "Google-arvio",
  "source.email": "Sähköposti",
  "source.web_form": "Verkkolomake",
  "source.desk": "Palautepiste",
  "alert.injury_safety": "loukkaantuminen tai turvallisuus",
  "alert.payment": "maksaminen",
  "alert.legal_threat": "oikeudellinen uhka",
  "alert.rasismi": "rasismi",
  "alert.data_loss": "tietojen menetys",
  "alert.security_account": "tilin turvallisuus",
  "alert.payment_failure": "maksu epäonnistui",
  "alert.blocking_bug": "estävä vika",
  "meta.generated": "koottu {time}",
};

const BUNDLES = { en, fi };
const LOCALES = { en: "en-GB", fi: "fi-FI" };

export function pickLanguage(language) {
  const key = typeof language === "string" ? language.trim().toLowerCase().slice(0, 2) : "";
  return Object.prototype.hasOwnProperty.call(BUNDLES, key) ? key : "en";
}

export function initialLanguage(nav = globalThis.navigator) {
  const wanted = nav && (nav.language || (nav.languages && nav.languages[0]));
  return pickLanguage(wanted);
}

/** A translator for one language: t(key, params) → string (unknown keys fall back to English, then the key). */
/** Times in ``zone`` (an IANA name the server sent) from now on; an unknown one keeps the browser's. */
export function useTimeZone(t, zone) {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    t.timeZone = zone;
  } catch {
    t.timeZone = undefined;
  }
}

export function translator(language) {
  const lang = pickLanguage(language);
  const bundle = BUNDLES[lang];
  const t = (key, params = {}) => {
    const value = bundle[key] ?? en[key];
    if (value === undefined) return key;
    if (typeof value === "function") return value(params);
    return value.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
  };
  t.lang = lang;
  t.locale = LOCALES[lang];
  t.timeZone = undefined; // the browser's, until a report names the service's (FI_TIMEZONE)
  t.has = (key) => key in bundle || key in en;
  return t;
}

/** Fill every element carrying data-i18n (text) or data-i18n-aria (aria-label) with the bundle's text. */
export function applyStatic(root, t) {
  root.documentElement && (root.documentElement.lang = t.lang);
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
}

/** A Date from a Date or an ISO text; the server's seven fractional digits are cut to milliseconds. */
export function toDate(value) {
  if (value instanceof Date) return value;
  if (typeof value === "string") return new Date(value.replace(/(\.\d{3})\d+/, "$1"));
  return new Date(Number.NaN);
}

export function formatTime(value, t, withDate = true) {
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return String(value ?? "");
  const options = withDate
    ? { day: "numeric", month: "numeric", year: "numeric", hour: "2-digit", minute: "2-digit" }
    : { hour: "2-digit", minute: "2-digit" };
  return new Intl.DateTimeFormat(t.locale, { ...options, timeZone: t.timeZone }).format(date);
}

export function formatShortTime(value, t, now = new Date()) {
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return String(value ?? "");
  const sameDay = date.toDateString() === now.toDateString();
  if (sameDay) return formatTime(date, t, false);
  return new Intl.DateTimeFormat(t.locale,
    { day: "numeric", month: "numeric", hour: "2-digit", minute: "2-digit", timeZone: t.timeZone })
    .format(date);
}

export function formatDate(value, t) {
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return String(value ?? "");
  return new Intl.DateTimeFormat(t.locale, { day: "numeric", month: "numeric", year: "numeric", timeZone: t.timeZone })
    .format(date);
}
