package main

import "errors"

// benchClient is replaced by the benchmark owner.
func benchClient() error { return errors.New("not implemented") }
