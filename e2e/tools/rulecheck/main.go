// cmo-rulecheck checks Prometheus monitoring assets the way Prometheus itself reads them.
//
//	cmo-rulecheck rules <file>   a rule file (groups of alerting and recording rules), parsed and
//	                             validated by Prometheus' rulefmt with every expression parsed as PromQL
//	cmo-rulecheck exprs          PromQL expressions, one per line on stdin (a dashboard's queries)
//
// For each expression it prints "OK <metric names it selects, comma-separated>" or "ERROR <why>";
// a rule file that does not validate prints "ERROR <why>" per problem. Exit status 1 when any
// ERROR was printed, 2 on bad usage.
package main

import (
	"bufio"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	p := parser.NewParser(parser.Options{})
	failed := false
	switch os.Args[1] {
	case "rules":
		if len(os.Args) != 3 {
			usage()
		}
		groups, errs := rulefmt.ParseFile(os.Args[2], false, model.UTF8Validation, p, slog.Default())
		for _, e := range errs {
			fmt.Println("ERROR " + oneLine(e.Error()))
			failed = true
		}
		if groups != nil {
			for _, g := range groups.Groups {
				for _, r := range g.Rules {
					name := r.Alert
					if name == "" {
						name = r.Record
					}
					if !report(p, g.Name+"/"+name+": ", r.Expr) {
						failed = true
					}
				}
			}
		}
	case "exprs":
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(make([]byte, 1<<20), 1<<20)
		for in.Scan() {
			line := strings.TrimSpace(in.Text())
			if line == "" {
				continue
			}
			if !report(p, "", line) {
				failed = true
			}
		}
	default:
		usage()
	}
	if failed {
		os.Exit(1)
	}
}

// report parses expr and prints its verdict; false when it does not parse.
func report(p parser.Parser, prefix, expr string) bool {
	parsed, err := p.ParseExpr(expr)
	if err != nil {
		fmt.Println("ERROR " + prefix + oneLine(err.Error()) + " in: " + oneLine(expr))
		return false
	}
	names := map[string]bool{}
	parser.Inspect(parsed, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok && vs.Name != "" {
			names[vs.Name] = true
		}
		return nil
	})
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	fmt.Println("OK " + prefix + strings.Join(sorted, ","))
	return true
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: cmo-rulecheck rules <file> | cmo-rulecheck exprs < expressions")
	os.Exit(2)
}
