package manifests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithinKeepsPathsInsideTheFolder(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "sweep")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "outside.yaml"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "sub", "in.yaml"), []byte("x"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(base, "outside.yaml"), filepath.Join(root, "out-link.yaml")))
	require.NoError(t, os.Symlink(base, filepath.Join(root, "out-dir")))
	require.NoError(t, os.Symlink(filepath.Join("sub", "in.yaml"), filepath.Join(root, "in-link.yaml")))

	for _, ok := range []string{"sub/in.yaml", "sub/../sub/in.yaml", "in-link.yaml", "missing.yaml", "sub", "."} {
		path, err := Within(root, ok)
		if assert.NoError(t, err, ok) {
			assert.Equal(t, filepath.Join(root, ok), path)
		}
	}
	for ref, want := range map[string]string{
		"../outside.yaml":          "../outside.yaml is outside the folder " + root,
		"sub/../../outside.yaml":   "is outside the folder",
		"..":                       "is outside the folder",
		filepath.Join(root, "sub"): "is an absolute path",
		"/etc/passwd":              "/etc/passwd is an absolute path",
		"out-link.yaml":            "out-link.yaml resolves through a symbolic link to " + filepath.Join(base, "outside.yaml"),
		"out-dir/outside.yaml":     "resolves through a symbolic link",
		"out-dir/missing.yaml":     "resolves through a symbolic link to " + base,
	} {
		_, err := Within(root, ref)
		if want == "" {
			assert.NoError(t, err, ref)
			continue
		}
		assert.ErrorIs(t, err, ErrOutside, ref)
		assert.ErrorContains(t, err, want, ref)
	}
	assert.NoError(t, CheckWithin(root, filepath.Join(root, "in-link.yaml")))
	assert.ErrorIs(t, CheckWithin(root, filepath.Join(root, "out-link.yaml")), ErrOutside)
}
