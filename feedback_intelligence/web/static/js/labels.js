// Display labels for domain keys: the domain's own labels from /schema, else built-in words, else the key.

const DEFAULT_SEVERITIES = ["low", "medium", "high", "critical"];
const DEFAULT_SENTIMENTS = ["positive", "negative", "neutral"];

export function makeLabels(schema, t) {
  const sc = schema || {};
  const fromBundle = (prefix, key) => (t.has(`${prefix}.${key}`) ? t(`${prefix}.${key}`) : key);
  const field = typeof sc.categoryField === "string" && sc.categoryField.trim() ? sc.categoryField.trim() : null;
  return {
    category: (key) => (sc.categoryLabels && sc.categoryLabels[key]) || key,
    severity: (key) => (sc.severityLabels && sc.severityLabels[key]) || fromBundle("severity", key),
    type: (key) => (sc.typeLabels && sc.typeLabels[key]) || key,
    sentiment: (key) => (sc.sentimentLabels && sc.sentimentLabels[key]) || fromBundle("sentiment", key),
    source: (key) => fromBundle("source", key),
    alert: (key) => (t.has(`alert.${key}`) ? t(`alert.${key}`) : String(key).replace(/_/g, " ")),
    severityOrder: Array.isArray(sc.severities) && sc.severities.length ? sc.severities : DEFAULT_SEVERITIES,
    sentimentOrder: Array.isArray(sc.sentiments) && sc.sentiments.length ? sc.sentiments : DEFAULT_SENTIMENTS,
    demoted: Array.isArray(sc.demotedCategories) ? sc.demotedCategories : [],
    typeSentiment: sc.typeSentiment || {},
    categoryFieldTitle: field ? field.charAt(0).toUpperCase() + field.slice(1) : t("field.category"),
    categoryFieldWord: field ? field.toLowerCase() : t("field.category").toLowerCase(),
  };
}
