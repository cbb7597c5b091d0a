# The karpsim image: the static binary on distroless, as a non-root user.
#   docker build -t karpsim .
#   docker run --rm -p 8080:8080 -v ~/.kube:/kube:ro karpsim serve --kubeconfig /kube/config
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /karpsim ./cmd/karpsim

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /karpsim /karpsim
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/karpsim"]
CMD ["serve", "--listen", ":8080"]
