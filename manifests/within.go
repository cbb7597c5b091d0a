package manifests

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// ErrOutside is wrapped by Within's refusals: a path a scenario or sweep
// names that leaves the folder it must stay in.
var ErrOutside = errors.New("path leaves the folder")

// Within resolves ref, a path a file in folder root names, against root
// and returns it, if it stays inside root: ref must be relative, must not
// climb out with "..", and must not reach outside through a symbolic link
// (root's own links are followed first). A path that does not exist is
// checked by its deepest folder that does; reading it then says it is
// missing. A sweep
// or scenario that names only what is beside it or below can be moved, or
// packed into a ConfigMap, whole; one naming /etc/passwd or ~/.aws cannot.
func Within(root, ref string) (string, error) {
	root = filepath.Clean(root)
	if filepath.IsAbs(ref) || filepath.VolumeName(ref) != "" {
		return "", fmt.Errorf("%w: %s is an absolute path: name it relative to %s", ErrOutside, ref, folderName(root))
	}
	path := filepath.Join(root, ref)
	if !below(root, path) {
		return "", fmt.Errorf("%w: %s is outside %s", ErrOutside, ref, folderName(root))
	}
	if err := realWithin(root, path); err != nil {
		return "", fmt.Errorf("%w: %s %w", ErrOutside, ref, err)
	}
	return path, nil
}

// CheckWithin refuses path, found below root (a file of a folder a
// scenario names), when a symbolic link takes it outside root.
func CheckWithin(root, path string) error {
	if err := realWithin(root, path); err != nil {
		return fmt.Errorf("%w: %s %w", ErrOutside, path, err)
	}
	return nil
}

// realWithin checks that path, with its symbolic links resolved, is below
// root with its own resolved.
func realWithin(root, path string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("cannot be checked: %w", err)
	}
	// A path that does not exist is checked by the deepest folder of it
	// that does: a link out of root on the way still leaves root.
	real, err := filepath.EvalSymlinks(path)
	for p := path; errors.Is(err, fs.ErrNotExist) && filepath.Dir(p) != p; {
		p = filepath.Dir(p)
		real, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		return fmt.Errorf("cannot be checked: %w", err)
	}
	absRoot, err1 := filepath.Abs(realRoot)
	absReal, err2 := filepath.Abs(real)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("cannot be checked: %w", err)
	}
	if !below(absRoot, absReal) {
		return fmt.Errorf("resolves through a symbolic link to %s, outside %s", real, folderName(root))
	}
	return nil
}

// below reports whether path is root or under it; both are clean and
// either both absolute or both relative to the same folder.
func below(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func folderName(root string) string {
	if root == "" || root == "." {
		return "the working folder"
	}
	return "the folder " + root
}

// Skipped reports whether the warning is about an object of a kind karpsim
// does not read, which it skipped.
func (w Warning) Skipped() bool { return strings.HasPrefix(w.Message, skippedPrefix) }

// skippedPrefix starts the message of a skipped object's warning.
const skippedPrefix = "skipped:"
