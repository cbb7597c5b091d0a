package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
)

// adviceNodePool is one NodePool an advice changes: where it was read,
// the manifest before and after (as nodePoolYAML writes it), and the RFC
// 7386 JSON merge patch from one to the other (`kubectl patch nodepool
// NAME --type merge -p ...`).
type adviceNodePool struct {
	Name string `json:"name"`
	// File is the file the NodePool was read from, "" when it came from a
	// cluster, standard input or the built-in example.
	File       string         `json:"file,omitempty"`
	Before     map[string]any `json:"before"`
	After      map[string]any `json:"after"`
	MergePatch map[string]any `json:"mergePatch"`
}

// editedPool is a NodePool of an advice as read (from the manifests, not
// the snapshot's copy) and with the advice's edits applied.
type editedPool struct {
	name          string
	src           manifests.Source
	hasSource     bool
	before, after *apis.NodePool
}

// editedPools applies an advice's edits to the NodePools as read.
func editedPools(set *manifests.Set, a advise.Advice) ([]editedPool, error) {
	var out []editedPool
	for _, c := range a.NodePools {
		read := c.Before
		i := slices.IndexFunc(set.NodePools, func(np *apis.NodePool) bool { return np.Name == c.Before.Name })
		if i >= 0 {
			read = set.NodePools[i]
		}
		after := read.DeepCopy()
		for _, e := range a.Edits {
			if e.NodePool == read.Name {
				e.Apply(after)
			}
		}
		p := editedPool{name: read.Name, before: read, after: after}
		if i >= 0 {
			p.src, p.hasSource = set.SourceOf(read)
		}
		out = append(out, p)
	}
	return out, nil
}

// manifestTree is the NodePool as nodePoolYAML writes it, as a JSON tree.
func manifestTree(np *apis.NodePool) (map[string]any, error) {
	text, err := nodePoolYAML(np)
	if err != nil {
		return nil, err
	}
	return yamlTree(text, np.Name)
}

func yamlTree(text, name string) (map[string]any, error) {
	var tree map[string]any
	if err := sigsyaml.Unmarshal([]byte(text), &tree); err != nil {
		return nil, fmt.Errorf("NodePool %s: %w", name, err)
	}
	return tree, nil
}

// mergePatch is the RFC 7386 merge patch that turns before into after:
// changed keys with their new values (objects patched key by key, lists
// whole), removed keys as null.
func mergePatch(before, after map[string]any) map[string]any {
	out := map[string]any{}
	for k, a := range after {
		b, ok := before[k]
		if ok && reflect.DeepEqual(a, b) {
			continue
		}
		am, aIsMap := a.(map[string]any)
		bm, bIsMap := b.(map[string]any)
		if ok && aIsMap && bIsMap {
			out[k] = mergePatch(bm, am)
			continue
		}
		out[k] = a
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out[k] = nil
		}
	}
	return out
}

// errNotFromFile: a NodePool came from a cluster, standard input or the
// built-in example, not a file there is to patch.
var errNotFromFile = errors.New("not read from a file")

func isRegularFile(name string) bool {
	info, err := os.Stat(name)
	return err == nil && info.Mode().IsRegular()
}

// patchName is a file's name in a patch: relative to the root of the git
// work tree that holds it (as `git diff` names files), or to the working
// directory when no work tree does.
func patchName(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			rel, err := filepath.Rel(dir, abs)
			if err != nil {
				return "", err
			}
			return filepath.ToSlash(rel), nil
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the working directory and of any git work tree", file)
	}
	return filepath.ToSlash(rel), nil
}

// filePatch edits every NodePool the advice changes in the files they
// were read from, in place (editYAMLFile), and returns the unified diff
// of each file, named as patchName names it, which `git apply` (or
// `patch -p1`) applies. An error says why a file cannot be patched: a
// NodePool not read from a file, or a file karpsim cannot edit in place.
func filePatch(pools []editedPool) (string, error) {
	files := map[string][]editedPool{}
	var order []string
	for _, p := range pools {
		if !p.hasSource || !isRegularFile(p.src.File) {
			return "", fmt.Errorf("NodePool %s: %w", p.name, errNotFromFile)
		}
		if _, ok := files[p.src.File]; !ok {
			order = append(order, p.src.File)
		}
		files[p.src.File] = append(files[p.src.File], p)
	}
	var out strings.Builder
	for _, file := range order {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		edited, err := editNodePools(file, data, files[file])
		if err != nil {
			return "", err
		}
		name, err := patchName(file)
		if err != nil {
			return "", err
		}
		out.WriteString(unifiedDiff("a/"+name, "b/"+name, string(data), string(edited)))
	}
	return out.String(), nil
}

// editNodePools returns the file's text with the NodePools' specs edited
// in place, and checks it: read again, each NodePool is what the edits
// make of it, and the file's other NodePools are as they were.
func editNodePools(file string, data []byte, pools []editedPool) ([]byte, error) {
	f, err := parseYAMLFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, p := range pools {
		node, err := f.findObject(apis.KindNodePool, p.name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		before, err := manifestTree(p.before)
		if err != nil {
			return nil, err
		}
		after, err := manifestTree(p.after)
		if err != nil {
			return nil, err
		}
		spec := mapValue(node, "spec")
		if spec == nil {
			return nil, fmt.Errorf("%s: NodePool %s has no spec", file, p.name)
		}
		if err := f.editNode(spec, before["spec"], after["spec"]); err != nil {
			return nil, fmt.Errorf("%s: NodePool %s: %w", file, p.name, err)
		}
	}
	edited := f.result()
	// A file read alone may miss what other files give (an EC2NodeClass):
	// the edited file must read as the file did, with the same problems.
	was, wasErr := manifests.Decode(file, data)
	now, nowErr := manifests.Decode(file, edited)
	if was == nil || now == nil || fmt.Sprint(wasErr) != fmt.Sprint(nowErr) {
		return nil, fmt.Errorf("%s: the edited file does not read back: %v", file, nowErr)
	}
	if len(now.NodePools) != len(was.NodePools) {
		return nil, fmt.Errorf("%s: the edited file does not hold the same NodePools", file)
	}
	for i, np := range now.NodePools {
		want := was.NodePools[i]
		if k := slices.IndexFunc(pools, func(p editedPool) bool { return p.name == np.Name }); k >= 0 {
			want = pools[k].after
		}
		if !sameJSON(np.Spec, want.Spec) {
			return nil, fmt.Errorf("%s: NodePool %s does not read back as edited", file, np.Name)
		}
	}
	return edited, nil
}

func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
