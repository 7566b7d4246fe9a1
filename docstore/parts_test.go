package docstore

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"
)

// maxMethods bounds the exported methods of any one type of the package
// (issue 29): a type that grows past it does several jobs, and is split
// into parts (parts.go) so that each consumer names only what it uses.
const maxMethods = 30

// TestMethodSets keeps every type of the package under maxMethods
// exported methods, counting those its embedded fields of the package's
// own types bring (DocInfo's are Document's too). It reads the package's
// source, so it needs no list of types to keep up to date.
func TestMethodSets(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	own := map[string][]string{}    // type → its exported methods
	embeds := map[string][]string{} // type → the package's types it embeds
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.IsExported() {
					recv := typeName(d.Recv.List[0].Type)
					own[recv] = append(own[recv], d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, field := range st.Fields.List {
						if len(field.Names) == 0 {
							embeds[ts.Name.Name] = append(embeds[ts.Name.Name], typeName(field.Type))
						}
					}
				}
			}
		}
	}
	var methods func(typ string, seen map[string]bool) int
	methods = func(typ string, seen map[string]bool) int {
		if seen[typ] {
			return 0
		}
		seen[typ] = true
		n := len(own[typ])
		for _, e := range embeds[typ] {
			n += methods(e, seen)
		}
		return n
	}
	if len(own["Library"]) == 0 {
		t.Fatal("found no methods of Library: the source was not read")
	}
	var types []string
	for typ := range own {
		types = append(types, typ)
	}
	for typ := range embeds {
		if own[typ] == nil {
			types = append(types, typ)
		}
	}
	sort.Strings(types)
	for _, typ := range types {
		n := methods(typ, map[string]bool{})
		if n > 0 {
			t.Logf("%s: %d", typ, n)
		}
		if n > maxMethods {
			t.Errorf("%s has %d exported methods, more than %d: split it into parts, as parts.go splits Library", typ, n, maxMethods)
		}
	}
}

// typeName is the name of the type t names, without a pointer or a
// package.
func typeName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.X.(*ast.Ident).Name + "." + t.Sel.Name
	case *ast.IndexExpr: // a generic type's receiver
		return typeName(t.X)
	}
	return ""
}
