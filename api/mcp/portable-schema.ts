import type { z } from 'zod';

type Json = Record<string, unknown>;
type Io = 'input' | 'output';
type Options = { target: string };
// Standard JSON Schema's converter (zod 4.2+ has it; its types do not say so).
type Converter = Record<Io, (options: Options) => Json>;
// Keywords whose values are data, never schemas.
const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples']);

const wrapped = new WeakMap<z.ZodType, z.ZodType>();

/**
 * A tool schema as MCP clients read it most portably: the same zod schema (it still validates), whose
 * JSON Schema says nullable as `anyOf` (zod folds bare ones into a `type` array, which strict clients
 * and the Inspector's `--strict` refuse), has no `$ref` at its root, and uses the standard `examples`.
 * Converted once per schema and kept, so a server made per request does not convert again.
 */
export function portableSchema<S extends z.ZodType>(schema: S): S {
  let portable = wrapped.get(schema);
  if (!portable) {
    const standard = schema['~standard'] as typeof schema['~standard'] & { jsonSchema: Converter };
    const converted = new Map<string, Json>();
    const convert = (io: Io) => (options: Options) => {
      const key = `${io} ${options.target}`;
      if (!converted.has(key)) converted.set(key, portableJson(standard.jsonSchema[io](options)));
      // A copy each time: the SDK may decorate what it is given.
      return structuredClone(converted.get(key)!);
    };
    portable = Object.create(schema, {
      '~standard': { value: { ...standard, jsonSchema: { input: convert('input'), output: convert('output') } } },
    }) as S;
    wrapped.set(schema, portable);
  }
  return portable as S;
}

/** The rewrite itself, on a JSON Schema document (exported for its tests). */
export function portableJson(document: Json): Json {
  const root = rewrite(document) as Json;
  return inlineRootRef(root);
}

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' && Array.isArray(value)) out.anyOf = value.map((type) => ({ type }));
    else if (key === 'example') out.examples = [value];
    else if (DATA_KEYWORDS.has(key)) out[key] = value;
    // Property names are data, not keywords: never rewritten themselves.
    else if (key === 'properties' || key === '$defs') out[key] = Object.fromEntries(Object.entries(value as Json).map(([name, schema]) => [name, rewrite(schema)]));
    else out[key] = rewrite(value);
  }
  return out;
}

/** `{"$ref": "#/$defs/X", "$defs": {X: …}}` (zod's form for a schema with an id) as X itself. */
function inlineRootRef(root: Json): Json {
  const match = typeof root.$ref === 'string' ? /^#\/\$defs\/([^/]+)$/.exec(root.$ref) : null;
  const defs = root.$defs as Record<string, Json> | undefined;
  if (!match || !defs?.[match[1]!]) return root;
  const name = match[1]!;
  const { $ref: _ref, $defs: _defs, ...rest } = root;
  const others = Object.fromEntries(Object.entries(defs).filter(([key]) => key !== name));
  // Kept only while something else still points at it.
  const stillUsed = JSON.stringify([defs[name], others]).includes(`"#/$defs/${name}"`);
  const remaining = stillUsed ? defs : others;
  return { ...rest, ...defs[name], ...(Object.keys(remaining).length ? { $defs: remaining } : {}) };
}
