package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// distrolessBase is the Dockerfile's base image, whose files baseFiles
// reproduces: another base needs them reviewed.
const distrolessBase = "gcr.io/distroless/static-debian12:nonroot"

// TestDockerfileInStep holds the Dockerfile and this build equal: its last
// stage's base, USER, EXPOSE, ENTRYPOINT, CMD, LABELs and COPY of the
// binary, and its build stage's go build command, against the image
// written and read back.
func TestDockerfileInStep(t *testing.T) {
	src, err := findSource(".")
	require.NoError(t, err)
	df, err := parseDockerfile(filepath.Join(src, "Dockerfile"))
	require.NoError(t, err)
	require.Len(t, df.stages, 2, "a build stage and the image's")
	build, final := df.stages[0], df.stages[1]

	var goBuild []string
	for _, run := range build.all("RUN") {
		if words, err := shellWords(run); err == nil && slices.Contains(words, "build") && slices.Contains(words, "go") {
			goBuild = words
		}
	}
	want := slices.Concat([]string{"CGO_ENABLED=0", "go", "build"}, BuildFlags, []string{"-o", BinaryPath, "./cmd/karpsim"})
	assert.Equal(t, want, goBuild, "the build stage builds karpsim as BuildBinary does")

	assert.Equal(t, distrolessBase, final.from)
	copies := final.all("COPY")
	require.Len(t, copies, 1)
	words, err := shellWords(copies[0])
	require.NoError(t, err)
	assert.Equal(t, []string{"--from=build", BinaryPath, BinaryPath}, words)

	img, err := tarball.ImageFromPath(writtenImage(t), nil)
	require.NoError(t, err)
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	c := cfg.Config
	assert.Equal(t, final.last("USER"), c.User, "USER")
	var ports []string
	for _, e := range final.all("EXPOSE") {
		for _, p := range strings.Fields(e) {
			if !strings.Contains(p, "/") {
				p += "/tcp"
			}
			ports = append(ports, p)
		}
	}
	exposed := make([]string, 0, len(c.ExposedPorts))
	for p := range c.ExposedPorts {
		exposed = append(exposed, p)
	}
	slices.Sort(ports)
	slices.Sort(exposed)
	assert.Equal(t, ports, exposed, "EXPOSE")
	var entrypoint, cmd []string
	require.NoError(t, json.Unmarshal([]byte(final.last("ENTRYPOINT")), &entrypoint), "ENTRYPOINT in JSON form")
	require.NoError(t, json.Unmarshal([]byte(final.last("CMD")), &cmd), "CMD in JSON form")
	assert.Equal(t, entrypoint, c.Entrypoint, "ENTRYPOINT")
	assert.Equal(t, cmd, c.Cmd, "CMD")
	labels := map[string]string{}
	for _, l := range final.all("LABEL") {
		words, err := shellWords(l)
		require.NoError(t, err)
		for _, w := range words {
			k, v, ok := strings.Cut(w, "=")
			require.True(t, ok, "LABEL %s: key=value", w)
			labels[k] = v
		}
	}
	assert.NotEmpty(t, labels)
	assert.Equal(t, labels, c.Labels, "LABEL")
	assert.Equal(t, runtime.GOARCH, cfg.Architecture)
}

// dockerfile is a Dockerfile's instructions by stage.
type dockerfile struct{ stages []stage }

type stage struct {
	from         string
	instructions [][2]string // keyword (upper case), arguments
}

func (s stage) all(keyword string) []string {
	var out []string
	for _, in := range s.instructions {
		if in[0] == keyword {
			out = append(out, in[1])
		}
	}
	return out
}

func (s stage) last(keyword string) string {
	all := s.all(keyword)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1]
}

// parseDockerfile reads the instructions of a Dockerfile: comments and
// blank lines dropped, continuation lines joined.
func parseDockerfile(path string) (dockerfile, error) {
	f, err := os.Open(path)
	if err != nil {
		return dockerfile{}, err
	}
	defer f.Close()
	var df dockerfile
	var pending string
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if pending == "" && (text == "" || strings.HasPrefix(text, "#")) {
			continue
		}
		if rest, ok := strings.CutSuffix(text, `\`); ok {
			pending += rest + " "
			continue
		}
		text, pending = pending+text, ""
		keyword, args, _ := strings.Cut(text, " ")
		keyword, args = strings.ToUpper(keyword), strings.TrimSpace(args)
		if keyword == "FROM" {
			image, _, _ := strings.Cut(args, " ")
			df.stages = append(df.stages, stage{from: image})
			continue
		}
		if len(df.stages) == 0 {
			return dockerfile{}, fmt.Errorf("%s:%d: %s before FROM", path, line, keyword)
		}
		s := &df.stages[len(df.stages)-1]
		s.instructions = append(s.instructions, [2]string{keyword, args})
	}
	return df, sc.Err()
}

// shellWords splits a command line as a POSIX shell does words, with
// single and double quotes and backslash escapes (no expansions).
func shellWords(s string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			word.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				word.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

func TestShellWords(t *testing.T) {
	words, err := shellWords(`CGO_ENABLED=0 go build -ldflags="-s -w" a='b c' d\ e "f\"g"`)
	require.NoError(t, err)
	assert.Equal(t, []string{"CGO_ENABLED=0", "go", "build", "-ldflags=-s -w", "a=b c", "d e", `f"g`}, words)
	_, err = shellWords(`"open`)
	assert.Error(t, err)
}
