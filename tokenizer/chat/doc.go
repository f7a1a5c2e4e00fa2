// Package chat renders the Jinja chat templates of model tokenizer
// configurations, so that a workload can build the exact text a serving
// engine builds before tokenizing a chat request. Every template bundled
// with the test data renders byte for byte as the reference renders it
// (Python's Jinja2 set up as Hugging Face's apply_chat_template sets it
// up, which vLLM and SGLang use), errors included.
//
// Rendering follows that set-up: trim_blocks and lstrip_blocks, "-"
// whitespace control, the loopcontrols extension ({% break %},
// {% continue %}), a {% generation %} block that renders its body,
// tojson as json.dumps(ensure_ascii=False), raise_exception(msg) and
// strftime_now(format). The immutable sandbox is kept: list.append,
// dict.update and the like are errors.
//
// The language covered: {{ }}, {% %}, {# #}; if/elif/else, for (with
// else, a loop filter "for x in y if c", unpacking, loop.index,
// index0, first, last, length, revindex, previtem, nextitem, cycle),
// set (names, ns.attr, blocks), macro (defaults, keyword arguments),
// call blocks with caller(), filter blocks; literals (strings, numbers,
// lists, tuples, dicts), arithmetic with Python's floor division and
// modulo, string and list repetition, comparisons, in, and/or/not,
// conditional expressions, attribute and index access, slices with steps;
// the filters, tests and string/dict/list methods chat templates use (see
// knownFilters, knownTests, knownMethods). Dicts keep insertion order, as
// Python's. An undefined name prints as "" and is false; using an
// attribute of it, or adding it, is an error naming it, as in Jinja2.
// trim and strip remove Unicode whitespace as Python's str.strip does.
//
// A template is untrusted computation: rendering counts steps (5,000,000
// statements, loop iterations and expressions), nesting (256) and output
// (64 MiB, also the limit of any one string value), stops when its
// context is done, and never lets a panic escape; parsing bounds nesting
// (200), so a 4 MB template cannot exhaust the stack. Anything outside
// the language above is refused when the template is parsed, with an
// error naming the template file and line.
package chat
