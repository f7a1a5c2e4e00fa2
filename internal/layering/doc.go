// Package layering holds the tests that keep servecmp's layers apart:
// domain packages never import the CLI, the presentation layer or the
// SQLite driver; only the CLI (cmd/ and internal/cli) imports cobra;
// cmd/servecmp stays within its line budget; and no function outside
// tests and fixture builders runs over 80 lines. It has no code of its
// own.
package layering
