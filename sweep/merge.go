package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Part is one shard's partial result, named (by its file) in errors.
type Part struct {
	Name   string
	Result *Result
}

// ReadPart reads a part as 'karpsim sweep --shard I/N -o json|yaml'
// writes it. An empty part, JSON cut off before its end, and a document
// that is not a sweep result are refused, naming the part: each is what a
// shard that failed leaves behind.
func ReadPart(name string, data []byte) (*Result, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: %w: the part is empty (did its shard fail before it wrote its result?)", name, ErrMerge)
	}
	if trimmed[0] == '{' && !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		if err != nil && strings.Contains(err.Error(), "unexpected end of JSON input") {
			return nil, fmt.Errorf("%s: %w: the part is truncated: its JSON stops after %d bytes, mid-value (was its shard killed while writing?)", name, ErrMerge, len(data))
		}
		return nil, fmt.Errorf("%s: %w: the part is not valid JSON: %v", name, ErrMerge, err)
	}
	var r Result
	if err := yaml.UnmarshalStrict(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w: not a sweep part: %s", name, ErrMerge, strings.TrimPrefix(err.Error(), "error unmarshaling JSON: while decoding JSON: json: "))
	}
	return &r, nil
}

// identity is what parts of one sweep share.
type identity struct {
	name, sweep   string
	total, shards int
}

func (id identity) String() string {
	name := id.name
	if name == "" {
		name = "unnamed"
	}
	return fmt.Sprintf("sweep %s (%s, %d runs in %d shards)", id.sweep, name, id.total, id.shards)
}

func identityOf(r *Result) identity {
	shards := 1
	if r.Shard != nil {
		shards = r.Shard.Count
	}
	return identity{name: r.Name, sweep: r.Sweep, total: r.Total, shards: shards}
}

// checkPart refuses a part that cannot be one whole shard of a sweep: one
// without the sweep's identity, and one whose runs or rows are not all the
// ones its shard has (a part cut off, or edited).
func checkPart(p Part) error {
	r := p.Result
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %w: "+format, append([]any{p.Name, ErrMerge}, args...)...)
	}
	switch {
	case r == nil:
		return fail("no result")
	case r.Sweep == "":
		return fail("the part carries no sweep identity (no \"sweep\" field): it was cut off, or not written by 'karpsim sweep --shard'")
	case r.Total < 0 || r.Total > MaxRuns:
		return fail("total %d is outside 0..%d", r.Total, MaxRuns)
	}
	shard := Shard{Count: 1}
	if r.Shard != nil {
		shard = *r.Shard
		if err := shard.Check(); err != nil || shard.Count < 1 {
			return fail("shard %s is not a shard I/N with 0 <= I < N", shard)
		}
	}
	var want []int
	for i := shard.Index; i < r.Total; i += shard.Count {
		want = append(want, i)
	}
	seen := make(map[int]bool, len(r.Runs))
	for _, run := range r.Runs {
		switch {
		case run.Index < 0 || run.Index >= r.Total || run.Index%shard.Count != shard.Index:
			return fail("run %d is not one of shard %s of a sweep of %d runs", run.Index, shard, r.Total)
		case seen[run.Index]:
			return fail("run %d is in the part twice", run.Index)
		}
		seen[run.Index] = true
	}
	if len(seen) != len(want) {
		missing := slices.IndexFunc(want, func(i int) bool { return !seen[i] })
		return fail("the part is truncated: shard %s of a sweep of %d runs has %d runs, the part holds %d (the first missing: run %d)",
			shard, r.Total, len(want), len(seen), want[missing])
	}
	if n := len(rows(r.Runs)); len(r.Rows) != n {
		return fail("the part is truncated: its %d runs make %d rows, it holds %d", len(r.Runs), n, len(r.Rows))
	}
	return nil
}

// MergeParts joins the parts of one sweep's shards into the result the
// whole sweep gives, as Merge does, naming the part at fault in errors:
// each part must be a whole shard (checkPart), all of the same sweep, each
// shard once, and none missing.
func MergeParts(parts []Part) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no parts", ErrMerge)
	}
	var errs []error
	for _, p := range parts {
		if err := checkPart(p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	first := parts[0]
	want := identityOf(first.Result)
	byShard := map[int]string{}
	out := &Result{Name: first.Result.Name, Sweep: first.Result.Sweep, Total: first.Result.Total}
	for _, p := range parts {
		if got := identityOf(p.Result); got != want {
			return nil, fmt.Errorf("%s: %w: the part is from another sweep: %s, where %s is of %s", p.Name, ErrMerge, got, first.Name, want)
		}
		index := 0
		if p.Result.Shard != nil {
			index = p.Result.Shard.Index
		}
		if other, ok := byShard[index]; ok {
			return nil, fmt.Errorf("%s: %w: shard %d/%d is given twice (also as %s)", p.Name, ErrMerge, index, want.shards, other)
		}
		byShard[index] = p.Name
		out.Runs = append(out.Runs, p.Result.Runs...)
	}
	var missing []string
	for i := range want.shards {
		if _, ok := byShard[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, want.shards))
		}
	}
	if len(missing) > 0 && len(out.Runs) < out.Total {
		return nil, fmt.Errorf("%w: shard %s of %s: no part given holds it, so %d of %d runs are missing; is a shard's part left out?",
			ErrMerge, strings.Join(missing, ", "), want, out.Total-len(out.Runs), out.Total)
	}
	slices.SortFunc(out.Runs, func(a, b RunResult) int { return a.Index - b.Index })
	out.Rows = rows(out.Runs)
	return out, nil
}
