package main

import (
	"bufio"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// results are the benchmarks' figures: for each benchmark (its name without the GOMAXPROCS
// suffix), one map from unit to value per run.
type results struct {
	runs map[string][]map[string]float64
	cpu  string
}

var (
	benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)
	procs     = regexp.MustCompile(`-\d+$`)
)

// parse reads go test -bench output.
func parse(out string) results {
	r := results{runs: map[string][]map[string]float64{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if cpu, ok := strings.CutPrefix(line, "cpu: "); ok {
			r.cpu = strings.TrimSpace(cpu)
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := procs.ReplaceAllString(m[1], "")
		f := strings.Fields(m[2])
		run := map[string]float64{}
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				run[f[i+1]] = v
			}
		}
		r.runs[name] = append(r.runs[name], run)
	}
	return r
}

// values are the values of unit in the runs of name.
func (r results) values(name, unit string) []float64 {
	var vs []float64
	for _, run := range r.runs[name] {
		if v, ok := run[unit]; ok {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	return vs
}

// median is the median of unit in the runs of name; ok is false without any.
func (r results) median(name, unit string) (v float64, ok bool) {
	return median(r.values(name, unit))
}

func median(vs []float64) (float64, bool) {
	n := len(vs)
	if n == 0 {
		return 0, false
	}
	vs = slices.Sorted(slices.Values(vs))
	if n%2 == 1 {
		return vs[n/2], true
	}
	return (vs[n/2-1] + vs[n/2]) / 2, true
}

// prefixed returns the names of the benchmarks starting with prefix.
func (r results) prefixed(prefix string) []string {
	var names []string
	for name := range r.runs {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
