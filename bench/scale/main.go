package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	gen := flag.Int("gen", 0, "generate N documents into -dir")
	big := flag.Int64("big", 0, "generate a text of N bytes into -file")
	dir := flag.String("dir", "", "")
	file := flag.String("file", "", "")
	seed := flag.Uint64("seed", 1, "")
	flag.Parse()
	if *gen > 0 {
		n, err := genDocs(*dir, *gen, *seed)
		fmt.Println(n, err)
	}
	if *big > 0 {
		fmt.Println(genBig(*file, *big, *seed))
	}
	_ = os.Stdout
}
