package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// built is the karpsim binary the tests put in their images, built once
// from this checkout as the Dockerfile builds it.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// karpsimBinary builds the binary once, for linux on this machine's
// architecture.
func karpsimBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		src, err := findSource(".")
		if err != nil {
			built.err = err
			return
		}
		if built.dir, err = os.MkdirTemp("", "karpsim-image-test"); err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(built.dir, "karpsim")
		built.err = BuildBinary(src, runtime.GOARCH, built.path)
	})
	require.NoError(t, built.err)
	return built.path
}

// writtenImage builds the image and writes it as `docker load` reads it,
// returning the tarball's path.
func writtenImage(t *testing.T) string {
	t.Helper()
	img, err := Build(Config{Binary: karpsimBinary(t), Arch: runtime.GOARCH, Certificates: testCertificates(t), Created: time.Unix(0, 0)})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "karpsim.tar")
	require.NoError(t, write(img, name.MustParseReference("karpsim:test").(name.Tag), "docker", path))
	return path
}

// testCertificates is the machine's CA bundle, or a PEM file of the test's
// own where it has none.
func testCertificates(t *testing.T) string {
	t.Helper()
	const system = "/etc/ssl/certs/ca-certificates.crt"
	if _, err := os.Stat(system); err == nil {
		return system
	}
	path := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(path, []byte("-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n"), 0o644))
	return path
}

// TestImageConfig reads the written tarball back as `docker load` would
// and checks what `docker run` takes from it: the user, the entrypoint and
// command, the port, the environment, the working directory and the
// labels; and that it holds exactly the base's files and the binary (no
// shell), with their owners and modes.
func TestImageConfig(t *testing.T) {
	path := writtenImage(t)
	img, err := tarball.ImageFromPath(path, nil)
	require.NoError(t, err)
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, "linux", cfg.OS)
	assert.Equal(t, runtime.GOARCH, cfg.Architecture)
	assert.Equal(t, "65532:65532", cfg.Config.User)
	assert.Equal(t, []string{"/karpsim"}, cfg.Config.Entrypoint)
	assert.Equal(t, []string{"serve", "--listen", ":8080"}, cfg.Config.Cmd)
	assert.Equal(t, map[string]struct{}{"8080/tcp": {}}, cfg.Config.ExposedPorts)
	assert.Equal(t, "/home/nonroot", cfg.Config.WorkingDir)
	assert.Contains(t, cfg.Config.Env, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt")
	assert.Equal(t, "karpsim", cfg.Config.Labels["org.opencontainers.image.title"])
	layers, err := img.Layers()
	require.NoError(t, err)
	assert.Len(t, layers, 2, "a base layer and the binary's, as the Dockerfile's COPY makes")
	assert.Len(t, cfg.History, 2)

	entries := rootfs(t, img)
	type entry struct {
		mode     os.FileMode
		uid, gid int
	}
	got := map[string]entry{}
	for _, h := range entries {
		got[strings.TrimSuffix(h.Name, "/")] = entry{h.FileInfo().Mode(), h.Uid, h.Gid}
	}
	want := map[string]entry{
		"etc":                               {os.ModeDir | 0o755, 0, 0},
		"etc/group":                         {0o644, 0, 0},
		"etc/nsswitch.conf":                 {0o644, 0, 0},
		"etc/passwd":                        {0o644, 0, 0},
		"etc/ssl":                           {os.ModeDir | 0o755, 0, 0},
		"etc/ssl/certs":                     {os.ModeDir | 0o755, 0, 0},
		"etc/ssl/certs/ca-certificates.crt": {0o644, 0, 0},
		"home":                              {os.ModeDir | 0o755, 0, 0},
		"home/nonroot":                      {os.ModeDir | 0o700, 65532, 65532},
		"root":                              {os.ModeDir | 0o700, 0, 0},
		"tmp":                               {os.ModeDir | os.ModeSticky | 0o777, 0, 0},
		"karpsim":                           {0o755, 0, 0},
	}
	assert.Equal(t, want, got, "the image's files: distroless/static's that karpsim uses, and the binary; no shell")
	files := contents(t, img)
	assert.Contains(t, string(files["etc/passwd"]), "nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")
	assert.Contains(t, string(files["etc/group"]), "nonroot:x:65532:\n")
	certs, err := os.ReadFile(testCertificates(t))
	require.NoError(t, err)
	assert.Equal(t, certs, files["etc/ssl/certs/ca-certificates.crt"])
	binary, err := os.ReadFile(karpsimBinary(t))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(binary, files["karpsim"]), "the image's /karpsim is the binary built")
}

// TestImageIsReproducible builds the image twice: the same digest, and the
// same bytes written; a different SOURCE_DATE_EPOCH gives another digest.
func TestImageIsReproducible(t *testing.T) {
	build := func(at time.Time) v1.Image {
		img, err := Build(Config{Binary: karpsimBinary(t), Arch: runtime.GOARCH, Certificates: testCertificates(t), Created: at})
		require.NoError(t, err)
		return img
	}
	digest := func(img v1.Image) v1.Hash {
		d, err := img.Digest()
		require.NoError(t, err)
		return d
	}
	first, second := build(time.Unix(0, 0)), build(time.Unix(0, 0))
	assert.Equal(t, digest(first), digest(second))
	dir := t.TempDir()
	tag := name.MustParseReference("karpsim:test").(name.Tag)
	var written [][]byte
	for i, img := range []v1.Image{first, second} {
		path := filepath.Join(dir, fmt.Sprint(i, ".tar"))
		require.NoError(t, write(img, tag, "docker", path))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		written = append(written, data)
	}
	assert.True(t, bytes.Equal(written[0], written[1]), "two builds write the same tarball")
	assert.NotEqual(t, digest(first), digest(build(time.Unix(1700000000, 0))))
}

// TestImageOCILayout writes the OCI image layout and reads the image back
// from its index: the same digest.
func TestImageOCILayout(t *testing.T) {
	img, err := Build(Config{Binary: karpsimBinary(t), Arch: runtime.GOARCH, Certificates: testCertificates(t), Created: time.Unix(0, 0)})
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "oci")
	require.NoError(t, write(img, name.MustParseReference("karpsim:test").(name.Tag), "oci", dir))
	p, err := layout.FromPath(dir)
	require.NoError(t, err)
	index, err := p.ImageIndex()
	require.NoError(t, err)
	m, err := index.IndexManifest()
	require.NoError(t, err)
	require.Len(t, m.Manifests, 1)
	assert.Equal(t, "karpsim:test", m.Manifests[0].Annotations["org.opencontainers.image.ref.name"])
	want, err := img.Digest()
	require.NoError(t, err)
	assert.Equal(t, want, m.Manifests[0].Digest)
	back, err := p.Image(want)
	require.NoError(t, err)
	cfg, err := back.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, User, cfg.Config.User)
}

// TestBuildRefuses: a dynamically linked binary, a missing one and missing
// certificates are errors naming them.
func TestBuildRefuses(t *testing.T) {
	certs := testCertificates(t)
	_, err := Build(Config{Binary: filepath.Join(t.TempDir(), "none"), Arch: runtime.GOARCH, Certificates: certs})
	assert.ErrorContains(t, err, "karpsim binary")
	_, err = Build(Config{Binary: karpsimBinary(t), Arch: runtime.GOARCH, Certificates: filepath.Join(t.TempDir(), "none")})
	assert.ErrorContains(t, err, "CA certificates")
	if ls, lookErr := exec.LookPath("ls"); lookErr == nil && checkStatic(ls) != nil {
		_, err = Build(Config{Binary: ls, Arch: runtime.GOARCH, Certificates: certs})
		assert.ErrorContains(t, err, "CGO_ENABLED=0", "a dynamically linked binary (%s)", ls)
	}
	assert.ErrorContains(t, run([]string{"-format", "zip", "-o", "x"}, io.Discard), "-format")
	assert.ErrorContains(t, run([]string{}, io.Discard), "-o PATH")
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	assert.ErrorContains(t, run([]string{"-o", filepath.Join(t.TempDir(), "x.tar"), "-binary", karpsimBinary(t)}, io.Discard), "SOURCE_DATE_EPOCH")
}

// rootfs lists the image's flattened filesystem, as a runtime unpacks it.
func rootfs(t *testing.T, img v1.Image) []*tar.Header {
	t.Helper()
	r := mutate.Extract(img)
	defer r.Close()
	tr := tar.NewReader(r)
	var out []*tar.Header
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b *tar.Header) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// contents are the regular files of the image's filesystem by path.
func contents(t *testing.T, img v1.Image) map[string][]byte {
	t.Helper()
	r := mutate.Extract(img)
	defer r.Close()
	tr := tar.NewReader(r)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if h.Typeflag == tar.TypeReg {
			data, err := io.ReadAll(tr)
			require.NoError(t, err)
			out[h.Name] = data
		}
	}
	return out
}
