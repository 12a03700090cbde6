// JSON re-indented, not re-serialised: JSON.parse would turn 12345678901234567890 into
// 12345678901234567000 and drop duplicate keys, and a payload must be shown as it was sent.
// The layout is JSON.stringify(value, null, 2)'s (and Python's json.dumps(indent=2)).

const INDENT = "  ";

/** The JSON text laid out two spaces per level; undefined when it is not valid JSON. */
export function prettyJson(text: string): string | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  let out = "";
  let depth = 0;
  const newline = () => `\n${INDENT.repeat(depth)}`;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      const next = nextSignificant(text, i + 1);
      if (text[next] === close) { // empty: {} and [] stay on one line
        out += c + close;
        i = next;
      } else {
        depth += 1;
        out += c + newline();
      }
    } else if (c === "}" || c === "]") {
      depth -= 1;
      out += newline() + c;
    } else if (c === ",") {
      out += c + newline();
    } else if (c === ":") {
      out += ": ";
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}

/** The index just after the string literal that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i + 1;
}

function nextSignificant(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i]!)) i += 1;
  return i;
}
