// Command image builds karpsim's container image without a container
// engine: the image the repository's Dockerfile describes (the static
// binary on distroless/static's files, as user 65532, `karpsim serve` on
// port 8080), assembled from the checkout and written as a tarball that
// `docker load` (or `podman load`) reads, or as an OCI image layout.
//
//	cd tools/image && go run . -o /tmp/karpsim.tar
//	docker load -i /tmp/karpsim.tar
//
// The image is reproducible: the same checkout, Go and CA certificates
// give the same digest. Its files and the image's time are at
// SOURCE_DATE_EPOCH (seconds), or at the epoch when it is unset.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	out := fs.String("o", "", "write the image to this `PATH`: a tarball for `docker load` (or with -format oci, an OCI image layout directory)")
	format := fs.String("format", "docker", "docker: a tarball `docker load` reads; oci: an OCI image layout directory")
	tag := fs.String("tag", "karpsim:latest", "the image's name in the tarball (`docker load` tags it so)")
	src := fs.String("src", "", "the karpsim checkout to build (default: the one holding the working directory)")
	arch := fs.String("arch", runtime.GOARCH, "the image's architecture (GOARCH)")
	binary := fs.String("binary", "", "put this karpsim binary in the image instead of building one (linux, CGO_ENABLED=0)")
	certs := fs.String("ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "the PEM bundle of CA certificates to install")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return errors.New("-o PATH: where to write the image")
	}
	if *format != "docker" && *format != "oci" {
		return fmt.Errorf("-format %q: give docker or oci", *format)
	}
	ref, err := name.NewTag(*tag)
	if err != nil {
		return fmt.Errorf("-tag %q: %w", *tag, err)
	}
	created, err := sourceDate(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	bin := *binary
	if bin == "" {
		dir := *src
		if dir == "" {
			if dir, err = findSource("."); err != nil {
				return err
			}
		}
		tmp, err := os.MkdirTemp("", "karpsim-image")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		bin = filepath.Join(tmp, "karpsim")
		if err := BuildBinary(dir, *arch, bin); err != nil {
			return err
		}
	}
	img, err := Build(Config{Binary: bin, Arch: *arch, Certificates: *certs, Created: created})
	if err != nil {
		return err
	}
	if err := write(img, ref, *format, *out); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s %s (%s, linux/%s) written to %s\n", ref, digest, *format, *arch, *out)
	return nil
}

// write writes the image as format to out.
func write(img v1.Image, ref name.Tag, format, out string) error {
	if format == "oci" {
		p, err := layout.Write(out, empty.Index)
		if err != nil {
			return fmt.Errorf("-o %s: %w", out, err)
		}
		return p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref.String()}))
	}
	if err := tarball.WriteToFile(out, ref, img); err != nil {
		return fmt.Errorf("-o %s: %w", out, err)
	}
	return nil
}

// sourceDate is the time SOURCE_DATE_EPOCH gives (seconds since the
// epoch), the epoch when it is empty.
func sourceDate(v string) (time.Time, error) {
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	s, err := strconv.ParseInt(v, 10, 64)
	if err != nil || s < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: give seconds since the epoch", v)
	}
	return time.Unix(s, 0).UTC(), nil
}
