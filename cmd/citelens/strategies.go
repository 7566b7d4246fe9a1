package main

// The strategies built into the command. Each registers itself with the
// engine when imported; keep one import per line.
import (
	_ "github.com/citelens/citelens/engine/cof"
	_ "github.com/citelens/citelens/engine/dag"
	_ "github.com/citelens/citelens/engine/extractive"
	_ "github.com/citelens/citelens/engine/longcite"
	_ "github.com/citelens/citelens/engine/okra"
	_ "github.com/citelens/citelens/engine/raidd"
)
