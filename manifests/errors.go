package manifests

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors: every *Error wraps exactly one of them, so callers can
// tell problems apart with errors.Is on the error Load or Decode returns.
var (
	// ErrRead: a file or folder could not be read.
	ErrRead = errors.New("cannot read manifest")
	// ErrMalformed: a document is not valid YAML or JSON, or is not an
	// object with apiVersion and kind.
	ErrMalformed = errors.New("malformed manifest")
	// ErrUnknownAPIVersion: a kind karpsim reads came with an apiVersion it
	// does not (e.g. karpenter.sh/v1alpha5 or apps/v1beta1).
	ErrUnknownAPIVersion = errors.New("unknown apiVersion")
	// ErrDecode: a field's value has the wrong type or format (a quantity
	// that does not parse, a string where a number belongs, ...).
	ErrDecode = errors.New("cannot decode field")
	// ErrInvalid: an object breaks a rule of its CRD or of Karpenter's
	// validation.
	ErrInvalid = errors.New("invalid object")
	// ErrMissingReference: an object refers to one that was not given (a
	// NodePool's EC2NodeClass).
	ErrMissingReference = errors.New("missing reference")
	// ErrTooLarge: a file or stream is larger than MaxStreamBytes, holds
	// more than MaxObjects objects, or an object larger than
	// MaxObjectBytes (or the Limits given instead), or a number written
	// with an exponent below MinExponent.
	ErrTooLarge = errors.New("manifest too large")
	// ErrEmpty: a file, folder or stream given to LoadInputs holds no
	// object of a kind karpsim reads.
	ErrEmpty = errors.New("no objects")
	// ErrDuplicate: two objects of the same kind have the same name (and
	// namespace).
	ErrDuplicate = errors.New("duplicate object")
)

// Source says where an object or document came from.
type Source struct {
	// File is the path given to Load, or the name given to Decode.
	File string
	// Document is the 1-based index of the YAML document in the file.
	Document int
	// Line is the 1-based line where the document's content starts.
	Line int
	// Item is the 1-based index in the items of a List document, or 0.
	Item int
}

// String returns "file:line", with the list item when there is one.
func (s Source) String() string {
	out := s.File
	if s.Line > 0 {
		out += ":" + strconv.Itoa(s.Line)
	}
	if s.Item > 0 {
		out += " item " + strconv.Itoa(s.Item)
	}
	return out
}

// where describes a document for messages that have no object to name.
func (s Source) where() string {
	out := fmt.Sprintf("document %d (line %d)", s.Document, s.Line)
	if s.Item > 0 {
		out += fmt.Sprintf(" item %d", s.Item)
	}
	return out
}

// Error is one problem found while reading manifests. Its text has one
// format throughout:
//
//	file: Kind/name: field.path: message
//
// with the object left out for problems of a whole document, and the path
// left out for problems of a whole object.
type Error struct {
	Source Source
	// Object is "Kind/name", or empty when the document is not an object.
	Object string
	// Path is the field at fault, e.g. "spec.disruption.budgets[0].nodes".
	Path string
	// Message says what is wrong and what would be accepted.
	Message string
	// Kind is the sentinel error this problem is an instance of.
	Kind error
}

// Error formats the problem as "file: object: path: message".
func (e *Error) Error() string {
	out := e.Source.File + ": "
	if e.Object != "" {
		out += e.Object + ": "
	}
	if e.Path != "" {
		out += e.Path + ": "
	}
	return out + e.Message
}

// Unwrap returns the sentinel error, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// Warning is something karpsim accepted but the user should know: a kind it
// skipped, an unknown field it ignored, a v1beta1 field it converted.
type Warning struct {
	Source Source
	// Object is "Kind/name", or empty.
	Object string
	// Message says what happened, naming the field.
	Message string
}

// String formats the warning like an Error: "file: object: message".
func (w Warning) String() string {
	out := w.Source.File + ": "
	if w.Object != "" {
		out += w.Object + ": "
	}
	return out + w.Message
}
