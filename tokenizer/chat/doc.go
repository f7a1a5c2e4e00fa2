// Package chat renders chat templates written in a subset of Jinja, enough
// for the ChatML/Qwen, Llama 3, Phi-3 and Gemma templates found in
// tokenizer_config.json files, so that a workload can build the exact text
// a serving engine builds before tokenizing a chat request.
//
// Rendering follows Hugging Face transformers: the Jinja environment has
// trim_blocks and lstrip_blocks on (a newline right after a block or comment
// tag is dropped; spaces and tabs before a block tag at the start of a line
// are dropped), and "-" on a tag side strips all whitespace on that side.
//
// The supported subset:
//
//   - tags: {{ expr }}, {% stmt %}, {# comment #}, with "-" whitespace control
//   - statements: if / elif / else / endif; for x in expr (also "for k, v in
//     expr") / else / endfor; set name = expr; set ns.attr = expr
//   - loop variables: loop.index, loop.index0, loop.first, loop.last,
//     loop.length, loop.revindex, loop.revindex0
//   - literals: strings ('…', "…" with \n \t \\ \' \" escapes), integers,
//     true/false/none (any case), lists [..], dicts {k: v}
//   - operators: + - * / // % ~, == != < > <= >=, in, not in, and, or, not,
//     x if c else y, attribute (a.b), index (a[i], negative i), slice
//     (a[i:j], a[::-1])
//   - filters: trim, length, count, lower, upper, string, first, last,
//     join(sep), default(v), items, tojson (indent=N), reject/select(test, arg)
//   - tests (x is [not] T): defined, undefined, none, string, number,
//     integer, mapping, iterable, sequence, boolean, true, false, equalto/eq
//   - functions: raise_exception(msg) (rendering fails with msg),
//     namespace(k=v, …), range(n)
//   - string methods: strip, lstrip, rstrip, lower, upper, startswith,
//     endswith, split, replace; dict methods: items, get, keys, values
//
// Everything else (macros, call blocks, set blocks, filters and functions
// not listed, strftime_now, …) is refused when the template is parsed, with
// an error naming the template file and line.
//
// Values are Go values: string, int, float64, bool, nil (none), []any,
// map[string]any; an undefined name renders as "" and is false. Dicts are
// iterated, printed and serialized in sorted key order (Python keeps
// insertion order; the messages built here have no such ambiguity).
package chat
