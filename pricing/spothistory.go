package pricing

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// linuxProductDescriptions are the spot product descriptions Karpenter asks
// EC2 for (aws pkg/providers/pricing/pricing.go, UpdateSpotPricing); other
// operating systems are priced differently and never launched by Karpenter.
var linuxProductDescriptions = [...]string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"}

// Sentinel errors wrapped by the *ParseError ParseSpotPriceHistory returns.
var (
	// ErrMalformedJSON: the input is not JSON or a value has the wrong JSON type.
	ErrMalformedJSON = errors.New("malformed JSON")
	// ErrMissingField: a required field is absent, null or empty.
	ErrMissingField = errors.New("missing")
	// ErrInvalidPrice: SpotPrice is not a finite non-negative decimal.
	ErrInvalidPrice = errors.New("invalid price")
	// ErrInvalidTimestamp: Timestamp is not RFC 3339.
	ErrInvalidTimestamp = errors.New("invalid timestamp")
)

// ParseError says where a spot price history is wrong: the file, the index
// of the entry in SpotPriceHistory (or -1 for the document as a whole) and
// the field.
type ParseError struct {
	Name  string
	Entry int
	Field string
	Err   error
}

// Error reads "name: entry 3: field SpotPrice: invalid price "abc"", leaving
// out the entry and field when they do not apply.
func (e *ParseError) Error() string {
	msg := e.Name
	if e.Entry >= 0 {
		msg += fmt.Sprintf(": entry %d", e.Entry)
	}
	if e.Field != "" {
		msg += ": field " + e.Field
	}
	return msg + ": " + e.Err.Error()
}

// Unwrap returns the underlying error, one of the sentinels above or, when
// reading failed, the reader's error.
func (e *ParseError) Unwrap() error { return e.Err }

// spotPriceEntry is one element of SpotPriceHistory. Pointers tell a
// missing field from an empty one.
type spotPriceEntry struct {
	AvailabilityZone   *string
	InstanceType       *string
	ProductDescription *string
	SpotPrice          *string
	Timestamp          *string
}

// ParseSpotPriceHistory reads the JSON printed by
// `aws ec2 describe-spot-price-history` and returns, for each (instance type,
// zone), its most recent Linux/UNIX spot price, sorted by instance type then
// zone. name is used in errors only, to say which input was wrong.
//
// Entries whose ProductDescription is neither "Linux/UNIX" nor
// "Linux/UNIX (Amazon VPC)" are skipped, as Karpenter asks EC2 for those two
// only. When two Linux entries for the same (type, zone) share the latest
// Timestamp, the higher price wins, so that the result never depends on the
// order of the entries and errs towards cost. Timestamps are returned in UTC.
//
// Every entry, skipped or not, must have all five fields as non-empty
// strings, a SpotPrice that is a finite non-negative decimal and an RFC 3339
// Timestamp; otherwise the result is a *ParseError naming the entry and
// field. Fields other than those five, such as NextToken, are ignored.
func ParseSpotPriceHistory(r io.Reader, name string) ([]SpotPrice, error) {
	entries, perr := decodeSpotPriceHistory(r)
	if perr != nil {
		perr.Name = name
		return nil, perr
	}
	latest := make(map[spotKey]SpotPrice, len(entries))
	for i, raw := range entries {
		price, linux, entryErr := parseSpotPriceEntry(raw)
		if entryErr != nil {
			entryErr.Name, entryErr.Entry = name, i
			return nil, entryErr
		}
		key := spotKey{price.InstanceType, price.Zone}
		if current, ok := latest[key]; linux && (!ok || supersedes(price, current)) {
			latest[key] = price
		}
	}
	prices := make([]SpotPrice, 0, len(latest))
	for _, price := range latest {
		prices = append(prices, price)
	}
	slices.SortFunc(prices, compareSpotPrice)
	return prices, nil
}

// decodeSpotPriceHistory returns the raw entries of the document's
// SpotPriceHistory array, which must be the only JSON value in r. The
// *ParseError it returns has Entry -1 and no Name.
func decodeSpotPriceHistory(r io.Reader) ([]json.RawMessage, *ParseError) {
	var doc struct{ SpotPriceHistory []json.RawMessage }
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, &ParseError{Entry: -1, Err: fmt.Errorf("%w: empty input", ErrMalformedJSON)}
		}
		return nil, &ParseError{Entry: -1, Field: typeErrorField(err), Err: jsonError(err)}
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("%w: more data after the value ending at byte %d", ErrMalformedJSON, end)
		}
		return nil, &ParseError{Entry: -1, Err: jsonError(err)}
	}
	if doc.SpotPriceHistory == nil {
		return nil, &ParseError{Entry: -1, Field: "SpotPriceHistory", Err: ErrMissingField}
	}
	return doc.SpotPriceHistory, nil
}

// parseSpotPriceEntry checks one entry and reports whether it is a Linux
// price. The *ParseError it returns has Field and Err set.
func parseSpotPriceEntry(raw json.RawMessage) (SpotPrice, bool, *ParseError) {
	var entry spotPriceEntry
	if err := json.Unmarshal(raw, &entry); err != nil {
		return SpotPrice{}, false, &ParseError{Field: typeErrorField(err), Err: jsonError(err)}
	}
	fields := []struct {
		name  string
		value *string
	}{
		{"AvailabilityZone", entry.AvailabilityZone},
		{"InstanceType", entry.InstanceType},
		{"ProductDescription", entry.ProductDescription},
		{"SpotPrice", entry.SpotPrice},
		{"Timestamp", entry.Timestamp},
	}
	for _, f := range fields {
		if f.value == nil || *f.value == "" {
			return SpotPrice{}, false, &ParseError{Field: f.name, Err: ErrMissingField}
		}
	}
	price, err := strconv.ParseFloat(*entry.SpotPrice, 64)
	if err != nil || !(price >= 0) || math.IsInf(price, 1) {
		return SpotPrice{}, false, &ParseError{Field: "SpotPrice", Err: fmt.Errorf("%w %q", ErrInvalidPrice, *entry.SpotPrice)}
	}
	at, err := time.Parse(time.RFC3339, *entry.Timestamp)
	if err != nil {
		return SpotPrice{}, false, &ParseError{Field: "Timestamp", Err: fmt.Errorf(
			"%w %q (want RFC 3339, e.g. 2024-05-01T12:00:00+00:00)", ErrInvalidTimestamp, *entry.Timestamp)}
	}
	spot := SpotPrice{InstanceType: *entry.InstanceType, Zone: *entry.AvailabilityZone, Price: price, Timestamp: at.UTC()}
	return spot, slices.Contains(linuxProductDescriptions[:], *entry.ProductDescription), nil
}

// typeErrorField returns the field a JSON type error is about, or "".
func typeErrorField(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return typeErr.Field
	}
	return ""
}

// jsonError rewords an encoding/json error without Go type names, wrapping
// ErrMalformedJSON; an error from the reader itself is returned as is.
func jsonError(err error) error {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("%w near byte %d: %v", ErrMalformedJSON, syntaxErr.Offset, syntaxErr)
	case errors.As(err, &typeErr):
		return fmt.Errorf("%w: want %s, got %s", ErrMalformedJSON, jsonKind(typeErr.Type), typeErr.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: unexpected end of input", ErrMalformedJSON)
	}
	return err
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nil:
		return "a value"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Struct:
		return "an object"
	case t.Kind() == reflect.Slice:
		return "an array"
	}
	return "a value"
}
