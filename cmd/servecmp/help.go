package main

import (
	"embed"

	"github.com/servecmp/servecmp/cmd/servecmp/internal/cli"
)

// helpFiles hold each command's long help and examples, one file per
// command (cli.HelpFile names them; cli.AddHelp reads them); a test
// requires a file for every command.
//
//go:embed help/*.txt
var helpFiles embed.FS

var helpFile = cli.HelpFile
