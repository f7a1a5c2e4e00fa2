// Reference ids for the tokenizer tests: tokenizers.js (the tokenizer of
// transformers.js) encodes each text of a JSON array without special
// tokens and prints one JSON array of id arrays.
// usage: node oracle.mjs PACKAGE_DIR TOKENIZER_JSON CORPUS_JSON
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkgDir, tokPath, corpusPath] = process.argv.slice(2);
const lib = await import(pathToFileURL(join(pkgDir, "dist", "tokenizers.mjs")).href);
const json = JSON.parse(readFileSync(tokPath, "utf8"));
let config = {};
try {
  config = JSON.parse(readFileSync(join(tokPath, "..", "tokenizer_config.json"), "utf8"));
} catch {}
const tok = new lib.Tokenizer(json, config);
const texts = JSON.parse(readFileSync(corpusPath, "utf8"));
const out = texts.map((t) => tok.encode(t, { add_special_tokens: false }).ids);
process.stdout.write(JSON.stringify(out));
