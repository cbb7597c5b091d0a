package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/karpsim/karpsim/manifests"
)

// stdinPath is the -f value that means standard input, as in kubectl.
const stdinPath = "-"

// stdinName names standard input in sources, errors and warnings.
const stdinName = "<stdin>"

// addFilenameFlag adds the repeatable -f/--filename of the commands that
// read manifests; defaultNote says what happens without it.
func addFilenameFlag(cmd *cobra.Command, files *[]string, defaultNote string) {
	cmd.Flags().StringArrayVarP(files, "filename", "f", nil,
		"manifest `PATH`: a file, a folder (read recursively: every .yaml, .yml and .json file under it, in lexical order), "+
			"or - for standard input (multi-document YAML, a kubectl List, or JSON); repeatable "+defaultNote)
	must(cmd.MarkFlagFilename("filename", manifestExtensions...))
}

// checkFiles refuses an empty -f and a second "-f -": standard input can
// be read only once.
func checkFiles(files []string) error {
	if slices.Contains(files, "") {
		return fmt.Errorf("%w: -f with an empty path", errUsage)
	}
	if n := countStdin(files); n > 1 {
		return fmt.Errorf("%w: -f - is given %d times: standard input can be read once", errUsage, n)
	}
	return nil
}

func countStdin(files []string) int {
	n := 0
	for _, f := range files {
		if f == stdinPath {
			n++
		}
	}
	return n
}

// loadManifests reads the -f paths in the order given, "-" being standard
// input, into one Set checked as a whole: a NodePool piped in may use an
// EC2NodeClass from a file. Standard input is decoded as it arrives, under
// the same limits as a file.
func loadManifests(files []string, limits limitOptions, stdin io.Reader, stderr io.Writer) (*manifests.Set, error) {
	inputs := make([]manifests.Input, 0, len(files))
	var piped *contentReader
	for _, path := range files {
		if path != stdinPath {
			inputs = append(inputs, manifests.Input{Path: path})
			continue
		}
		if isTerminal(stdin) {
			fmt.Fprintln(stderr, "karpsim: reading manifests from standard input (end with Ctrl-D)")
		}
		piped = &contentReader{r: stdin}
		var r io.Reader = piped
		if file, ok := stdin.(redirectedFile); ok {
			// manifests reads a List again from the file, if it must,
			// instead of holding it (a pipe's Seek fails, and it is held).
			r = rereadableContent{piped, file}
		}
		inputs = append(inputs, manifests.Input{Stream: manifests.Stream{Name: stdinName}, Reader: r})
	}
	set, err := manifests.LoadLimited(limits.manifests(), inputs...)
	if piped != nil && !piped.content && piped.err == nil {
		return nil, errEmptyStdin
	}
	return set, err
}

// An empty standard input is an error: it is what a failed `kubectl get`
// leaves in the pipe, and planning nothing would hide that.
var errEmptyStdin = fmt.Errorf("%s: standard input is empty: pipe manifests in, e.g. kubectl get ... -o yaml | karpsim plan -f -", stdinName)

// contentReader notes whether what it reads holds anything but white
// space.
type contentReader struct {
	r       io.Reader
	content bool
	err     error
}

func (c *contentReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if !c.content && len(bytes.TrimSpace(p[:n])) > 0 {
		c.content = true
	}
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// redirectedFile is standard input when it may be a file ("-f - < dump").
type redirectedFile interface {
	io.ReaderAt
	io.Seeker
}

// rereadableContent is a contentReader over standard input that manifests
// may also read again at an offset, as it reads a file.
type rereadableContent struct {
	*contentReader
	redirectedFile
}

func (r rereadableContent) Read(p []byte) (int, error) { return r.contentReader.Read(p) }

// readStdin reads all of standard input, up to limit bytes, for the
// commands that read one scenario rather than manifests. An empty input
// is errEmptyStdin. A longer one is cut one byte past the limit, for the
// reader of the data to refuse, naming the limit.
func readStdin(stdin io.Reader, limit int64, stderr io.Writer) ([]byte, error) {
	if isTerminal(stdin) {
		fmt.Fprintln(stderr, "karpsim: reading manifests from standard input (end with Ctrl-D)")
	}
	data, err := io.ReadAll(io.LimitReader(stdin, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stdinName, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errEmptyStdin
	}
	return data, nil
}
