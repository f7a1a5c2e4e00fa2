// Package layering holds the tests that keep servecmp's floors apart
// (docs/layout.md). It has no code of its own.
//
//   - Every package sits on one floor, F0 (foundations) to F6 (the CLI),
//     or behind one of two fences (tools in internal/cmd, test kits in
//     internal/testkit); only foundations live directly in internal/.
//   - No import of a non-test file runs up a floor; the test prints how
//     many do (the goal is 0).
//   - No package on a floor imports a fenced one: only tools and tests
//     use the test kits.
//   - compare links none of the tokenizer, the chat-template engine, the
//     check runner, the HTTP client or the load generator: it reads the
//     models of F1 only.
//   - cobra is imported in the cmd tree only, the SQLite driver only by
//     input, the nsys fast path and the nsys test kit.
//   - cmd/servecmp stays within its line budget, and no function outside
//     tests and fixture builders runs over 80 lines.
package layering
