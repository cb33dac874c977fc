// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package planner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// TestEveryReasonListed: every Reason* constant of reasons.go is in
// Reasons exactly once (a missing one would be counted as estimate_failed).
func TestEveryReasonListed(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "reasons.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs, ok := s.(*ast.ValueSpec)
			if !ok || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			v, _ := strconv.Unquote(lit.Value)
			n++
			if c := countOf(v); c != 1 {
				t.Errorf("%s = %q appears %d times in Reasons", vs.Names[0].Name, v, c)
			}
		}
	}
	if n != len(Reasons) {
		t.Errorf("%d reason constants, %d in Reasons", n, len(Reasons))
	}
}

func countOf(v string) int {
	c := 0
	for i := range Reasons {
		if Reasons[i] == v {
			c++
		}
	}
	return c
}
