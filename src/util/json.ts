// Reading parsed JSON loosely: whether a value is a plain object (not null, not an array).

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
