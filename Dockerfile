# The karpsim image: the static binary on distroless, as a non-root user.
#   docker build -t karpsim .
#   docker run --rm -p 8080:8080 -v ~/.kube:/kube:ro karpsim serve --kubeconfig /kube/config
# Without a container engine, tools/image assembles the same image (docs/serve.md);
# its TestDockerfileInStep holds the two equal: change both together.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /karpsim ./cmd/karpsim

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /karpsim /karpsim
LABEL org.opencontainers.image.title="karpsim" \
      org.opencontainers.image.description="karpsim serve: a read-only advisor on Karpenter's consolidation, as a page, JSON and Prometheus metrics"
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/karpsim"]
CMD ["serve", "--listen", ":8080"]
