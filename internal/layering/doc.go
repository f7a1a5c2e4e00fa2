// Package layering holds the tests that keep servecmp's layers apart:
// domain packages never import the CLI, the presentation layer or the
// SQLite driver, and cmd/servecmp stays within its line budget. It has
// no code of its own.
package layering
