// Command apilist prints the exported API of Go packages, one declaration
// per entry and no comments, so that a golden copy of it changes only when
// the API does (make api writes it, make vet compares).
//
//	go run ./internal/apilist DIR...
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: apilist DIR...")
		os.Exit(2)
	}
	for _, dir := range os.Args[1:] {
		if err := list(os.Stdout, dir); err != nil {
			fmt.Fprintln(os.Stderr, "apilist:", err)
			os.Exit(1)
		}
	}
}

// list writes the exported API of the package in dir (its non-test files).
func list(w io.Writer, dir string) error {
	// The files this platform's build would compile (build tags
	// honoured), without the tests.
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	names := append([]string(nil), bp.GoFiles...)
	names = append(names, bp.CgoFiles...)
	sort.Strings(names)
	for _, n := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, 0)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	name := bp.Name
	d, err := doc.NewFromFiles(fset, files, "example.com/"+name)
	if err != nil {
		return err
	}
	var lines []string
	add := func(prefix string, n ast.Node) {
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, n) // a bytes.Buffer does not fail
		lines = append(lines, prefix+strings.Join(strings.Fields(b.String()), " "))
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, s := range v.Decl.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !n.IsExported() {
						continue
					}
					typ := ""
					if vs.Type != nil {
						var b bytes.Buffer
						_ = printer.Fprint(&b, fset, vs.Type)
						typ = " " + b.String()
					}
					_ = i
					lines = append(lines, fmt.Sprintf("%s %s%s", v.Decl.Tok, n.Name, typ))
				}
			}
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			f.Decl.Doc, f.Decl.Body = nil, nil
			add("", f.Decl)
		}
	}
	values(d.Consts)
	values(d.Vars)
	funcs(d.Funcs)
	for _, t := range d.Types {
		for _, s := range t.Decl.Specs {
			ts := s.(*ast.TypeSpec)
			switch st := ts.Type.(type) {
			case *ast.StructType:
				lines = append(lines, "type "+ts.Name.Name+" struct")
				for _, f := range st.Fields.List {
					var b bytes.Buffer
					_ = printer.Fprint(&b, fset, f.Type)
					if len(f.Names) == 0 { // embedded
						lines = append(lines, fmt.Sprintf("    %s.%s", ts.Name.Name, b.String()))
					}
					for _, n := range f.Names {
						if n.IsExported() {
							lines = append(lines, fmt.Sprintf("    %s.%s %s", ts.Name.Name, n.Name, b.String()))
						}
					}
				}
			case *ast.InterfaceType:
				lines = append(lines, "type "+ts.Name.Name+" interface")
				for _, m := range st.Methods.List {
					var b bytes.Buffer
					_ = printer.Fprint(&b, fset, m.Type)
					if len(m.Names) == 0 {
						lines = append(lines, fmt.Sprintf("    %s.%s", ts.Name.Name, b.String()))
					}
					for _, n := range m.Names {
						if n.IsExported() {
							lines = append(lines, fmt.Sprintf("    %s.%s%s", ts.Name.Name, n.Name, strings.TrimPrefix(b.String(), "func")))
						}
					}
				}
			default:
				ts.Doc, ts.Comment = nil, nil
				add("type ", ts)
			}
		}
		values(t.Consts)
		values(t.Vars)
		funcs(t.Funcs)
		funcs(t.Methods)
	}
	fmt.Fprintf(w, "package %s\n", name)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	return nil
}
