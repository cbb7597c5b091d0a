package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's configuration: what the Dockerfile's last stage says (USER,
// EXPOSE, ENTRYPOINT, CMD, LABEL; TestDockerfileInStep holds them equal)
// and what its base, distroless/static's nonroot variant, sets (the
// environment and the working directory).
const (
	// User is the nonroot user of distroless, by number, as the
	// Dockerfile's USER names it.
	User = "65532:65532"
	// Port is the port serve listens on in the image, the one it exposes.
	Port = "8080/tcp"
	// BinaryPath is where the karpsim binary is in the image.
	BinaryPath = "/karpsim"
	// Home is the nonroot user's home, the working directory.
	Home = "/home/nonroot"
	// CertificatesPath is where the CA certificates are, as in Debian and
	// distroless.
	CertificatesPath = "/etc/ssl/certs/ca-certificates.crt"
)

var (
	// Entrypoint and Cmd: `karpsim serve --listen :8080` by default, any
	// karpsim command with arguments given to `docker run`.
	Entrypoint = []string{BinaryPath}
	Cmd        = []string{"serve", "--listen", ":8080"}
	// Labels are the image's OCI annotations.
	Labels = map[string]string{
		"org.opencontainers.image.title":       "karpsim",
		"org.opencontainers.image.description": "karpsim serve: a read-only advisor on Karpenter's consolidation, as a page, JSON and Prometheus metrics",
	}
	// Env is distroless' environment: its PATH, and the CA bundle named for
	// Go's crypto/x509 and other TLS stacks.
	Env = []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"SSL_CERT_FILE=" + CertificatesPath,
	}
	// BuildFlags build the binary as the Dockerfile does, with
	// CGO_ENABLED=0: static, without paths of the build machine, stripped.
	BuildFlags = []string{"-trimpath", "-ldflags=-s -w"}
)

// Config says what to put in the image.
type Config struct {
	// Binary is the karpsim binary for linux/Arch, static (see
	// BuildBinary).
	Binary string
	// Arch is the binary's GOARCH, the image's architecture.
	Arch string
	// Certificates is the PEM bundle of CA certificates to install at
	// CertificatesPath; the build machine's, usually.
	Certificates string
	// Created is the time of the image and of every file in it: fixed for
	// a reproducible image (SOURCE_DATE_EPOCH, or the epoch).
	Created time.Time
}

// BuildBinary builds karpsim from the checkout at src as the Dockerfile's
// build stage does (CGO_ENABLED=0 go build with BuildFlags) for linux/arch,
// into out.
func BuildBinary(src, arch, out string) error {
	args := slices.Concat([]string{"build"}, BuildFlags, []string{"-o", out, "./cmd/karpsim"})
	cmd := exec.Command("go", args...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOFLAGS=")
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s in %s: %w\n%s", strings.Join(args, " "), src, err, output)
	}
	return nil
}

// Build assembles the image: a base layer with the files of
// distroless/static that karpsim uses (the nonroot user and its group, its
// home, /tmp and the CA certificates; no shell, no package manager), then a
// layer with the binary, as the Dockerfile's COPY adds it.
func Build(c Config) (v1.Image, error) {
	if c.Arch == "" {
		return nil, fmt.Errorf("image: no architecture")
	}
	certs, err := os.ReadFile(c.Certificates)
	if err != nil {
		return nil, fmt.Errorf("CA certificates: %w", err)
	}
	binary, err := os.ReadFile(c.Binary)
	if err != nil {
		return nil, fmt.Errorf("karpsim binary: %w", err)
	}
	if err := checkStatic(c.Binary); err != nil {
		return nil, err
	}
	created := c.Created.UTC()
	base, err := layer(created, baseFiles(certs))
	if err != nil {
		return nil, err
	}
	app, err := layer(created, []file{{path: "karpsim", mode: 0o755, data: binary}})
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS = c.Arch, "linux"
	cfg.Created = v1.Time{Time: created}
	cfg.Config = v1.Config{
		User:         User,
		ExposedPorts: map[string]struct{}{Port: {}},
		Env:          slices.Clone(Env),
		Entrypoint:   slices.Clone(Entrypoint),
		Cmd:          slices.Clone(Cmd),
		WorkingDir:   Home,
		Labels:       Labels,
	}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return nil, err
	}
	return mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: cfg.Created,
			CreatedBy: "karpsim tools/image: distroless/static's nonroot user, /tmp and CA certificates", Comment: "base"}},
		mutate.Addendum{Layer: app, MediaType: types.OCILayer, History: v1.History{Created: cfg.Created,
			CreatedBy: "COPY karpsim " + BinaryPath}},
	)
}

// file is one entry of a layer: a directory when data is nil and dir is
// set.
type file struct {
	path     string
	mode     int64
	uid, gid int
	dir      bool
	data     []byte
}

// baseFiles are distroless/static's files that karpsim uses.
func baseFiles(certs []byte) []file {
	return []file{
		{path: "etc/", mode: 0o755, dir: true},
		{path: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n")},
		{path: "etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{path: "etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
			"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{path: "etc/ssl/", mode: 0o755, dir: true},
		{path: "etc/ssl/certs/", mode: 0o755, dir: true},
		{path: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: certs},
		{path: "home/", mode: 0o755, dir: true},
		{path: "home/nonroot/", mode: 0o700, uid: 65532, gid: 65532, dir: true},
		{path: "root/", mode: 0o700, dir: true},
		{path: "tmp/", mode: 0o1777, dir: true},
	}
}

// layer is an uncompressed tar of the files, every entry at created, as an
// image layer (compressed with gzip when written).
func layer(created time.Time, files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.path, Mode: f.mode, Uid: f.uid, Gid: f.gid, ModTime: created, Format: tar.FormatPAX}
		if f.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
}

// findSource is the karpsim checkout holding dir: the nearest directory up
// whose go.mod declares module github.com/karpsim/karpsim.
func findSource(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && modulePath(data) == "github.com/karpsim/karpsim" {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no karpsim checkout (go.mod of github.com/karpsim/karpsim) holds %s: give -src", dir)
		}
	}
}

func modulePath(gomod []byte) string {
	for line := range strings.SplitSeq(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
