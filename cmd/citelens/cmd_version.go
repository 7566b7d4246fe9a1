package main

import (
	"context"
	"fmt"
)

func init() {
	register(&command{name: "version", summary: "print the version (as --version does)", run: runVersion})
}

func runVersion(ctx context.Context, a *app, args []string) error {
	fs := newFlags(a, commands["version"])
	if _, err := parseFlags(a, fs, args); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "citelens", version)
	return nil
}
