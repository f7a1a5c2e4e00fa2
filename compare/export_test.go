package compare

// GoldenReport is the report behind the golden files, for the
// presentation tests in package compare_test.
var GoldenReport = goldenReport
