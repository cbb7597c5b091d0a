package apis

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kubelet expressions: since its NodeClassCEL feature gate (AWS provider,
// after v1.14.0), Karpenter's AWS provider reads an EC2NodeClass's
// kubelet maxPods, and the values of kubeReserved and systemReserved that
// are not quantities, as CEL expressions over the instance type, evaluated
// per type ("min(110, vcpus * 8)", "memory_mib / 100"). karpsim reads the
// part of CEL such expressions use, with its own small evaluator:
//
//   - whole numbers and decimals; the variables vcpus, memory_mib,
//     default_enis, ips_per_eni and max_pods (whole numbers);
//   - + - * / % and unary minus, with parentheses; min(a, b), max(a, b),
//     int(x) and double(x);
//   - as in CEL, whole numbers and decimals do not mix in arithmetic (write
//     double(vcpus) * 1.5), but min and max take either; whole-number
//     arithmetic that overflows 64 bits, and division or remainder by zero,
//     fail evaluation.
//
// Comparisons, the conditional operator, strings (instance_type) and other
// CEL functions are refused when parsed. An expression is at most
// MaxKubeletExpressionLength bytes, nested at most
// maxKubeletExpressionDepth deep.

// MaxKubeletExpressionLength is the longest kubelet expression karpsim reads.
const MaxKubeletExpressionLength = 1024

// maxKubeletExpressionDepth bounds nesting (parentheses, operands, calls).
const maxKubeletExpressionDepth = 32

// ErrKubeletExpression is wrapped by the errors of parsing and evaluating
// kubelet expressions.
var ErrKubeletExpression = errors.New("kubelet expression")

// KubeletVars are what a kubelet expression may refer to: the instance
// type's vCPUs, memory in MiB, network interfaces of its default card and
// IPv4 addresses per interface, and its pod capacity (the resolved maxPods,
// or the default when maxPods itself is evaluated).
type KubeletVars struct {
	VCPUs, MemoryMiB, DefaultENIs, IPsPerENI, MaxPods int64
}

// KubeletExpression is a parsed kubelet expression.
type KubeletExpression struct {
	text string
	root *exprNode
}

// exprKind is what a node is.
type exprKind uint8

const (
	exprInt exprKind = iota
	exprDouble
	exprVar
	exprNeg
	exprBinary
	exprCall
)

// exprNode is a node of a parsed expression; double says its type.
type exprNode struct {
	kind   exprKind
	double bool
	i      int64
	f      float64
	name   string // variable, operator or function
	args   []*exprNode
}

// kubeletVarNames are the variables, all whole numbers.
var kubeletVarNames = []string{"vcpus", "memory_mib", "default_enis", "ips_per_eni", "max_pods"}

// ParseKubeletExpression parses and type-checks a kubelet expression. Its
// result is a whole number or a decimal.
func ParseKubeletExpression(text string) (*KubeletExpression, error) {
	if len(text) > MaxKubeletExpressionLength {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrKubeletExpression, len(text), MaxKubeletExpressionLength)
	}
	p := &exprParser{text: text}
	p.next()
	root, err := p.sum(0)
	if err == nil && p.tok.kind != tokEnd {
		err = p.errorf("unexpected %s", p.tok)
	}
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrKubeletExpression, text, err)
	}
	return &KubeletExpression{text: text, root: root}, nil
}

// String returns the expression as written.
func (e *KubeletExpression) String() string { return e.text }

// Eval evaluates the expression for an instance type's variables: a
// decimal result is truncated towards zero; a decimal that is not finite
// or does not fit 64 bits, an overflow and a division by zero are errors.
func (e *KubeletExpression) Eval(vars KubeletVars) (int64, error) {
	v, err := evalNode(e.root, vars)
	if err != nil {
		return 0, fmt.Errorf("%w %q: %w", ErrKubeletExpression, e.text, err)
	}
	if !e.root.double {
		return v.i, nil
	}
	n, err := truncate(v.f)
	if err != nil {
		return 0, fmt.Errorf("%w %q: %w", ErrKubeletExpression, e.text, err)
	}
	return n, nil
}

// exprValue is a value of either type.
type exprValue struct {
	i int64
	f float64
}

func evalNode(n *exprNode, vars KubeletVars) (exprValue, error) {
	switch n.kind {
	case exprInt:
		return exprValue{i: n.i}, nil
	case exprDouble:
		return exprValue{f: n.f}, nil
	case exprVar:
		return exprValue{i: varValue(n.name, vars)}, nil
	case exprNeg:
		v, err := evalNode(n.args[0], vars)
		if err != nil {
			return v, err
		}
		if n.double {
			return exprValue{f: -v.f}, nil
		}
		if v.i == math.MinInt64 {
			return v, errors.New("integer overflow")
		}
		return exprValue{i: -v.i}, nil
	case exprCall:
		return evalCall(n, vars)
	}
	a, err := evalNode(n.args[0], vars)
	if err != nil {
		return a, err
	}
	b, err := evalNode(n.args[1], vars)
	if err != nil {
		return b, err
	}
	if n.double {
		return exprValue{f: doubleOp(n.name, a.f, b.f)}, nil
	}
	r, err := intOp(n.name, a.i, b.i)
	return exprValue{i: r}, err
}

func varValue(name string, vars KubeletVars) int64 {
	switch name {
	case "vcpus":
		return vars.VCPUs
	case "memory_mib":
		return vars.MemoryMiB
	case "default_enis":
		return vars.DefaultENIs
	case "ips_per_eni":
		return vars.IPsPerENI
	}
	return vars.MaxPods
}

func evalCall(n *exprNode, vars KubeletVars) (exprValue, error) {
	args := make([]exprValue, len(n.args))
	for i, a := range n.args {
		v, err := evalNode(a, vars)
		if err != nil {
			return v, err
		}
		// min and max of mixed types compare as decimals.
		if n.double && !a.double {
			v.f = float64(v.i)
		}
		args[i] = v
	}
	switch n.name {
	case "int":
		if !n.args[0].double {
			return args[0], nil
		}
		i, err := truncate(args[0].f)
		return exprValue{i: i}, err
	case "double":
		if n.args[0].double {
			return args[0], nil
		}
		return exprValue{f: float64(args[0].i)}, nil
	}
	a, b := args[0], args[1]
	if n.double {
		if (n.name == "min") == (a.f < b.f) {
			return a, nil
		}
		return b, nil
	}
	if (n.name == "min") == (a.i < b.i) {
		return a, nil
	}
	return b, nil
}

// truncate converts a decimal to a whole number towards zero, as CEL's
// int() does: out of range and not-a-number are errors.
func truncate(f float64) (int64, error) {
	if math.IsNaN(f) || f <= math.MinInt64 || f >= math.MaxInt64 {
		return 0, fmt.Errorf("%v does not fit a 64-bit whole number", f)
	}
	return int64(f), nil
}

func doubleOp(op string, a, b float64) float64 {
	switch op {
	case "+":
		return a + b
	case "-":
		return a - b
	case "*":
		return a * b
	case "/":
		return a / b
	}
	return math.Mod(a, b)
}

func intOp(op string, a, b int64) (int64, error) {
	overflow := errors.New("integer overflow")
	switch op {
	case "+":
		r := a + b
		if (r > a) != (b > 0) {
			return 0, overflow
		}
		return r, nil
	case "-":
		r := a - b
		if (r < a) != (b > 0) {
			return 0, overflow
		}
		return r, nil
	case "*":
		if a == 0 || b == 0 {
			return 0, nil
		}
		r := a * b
		if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
			return 0, overflow
		}
		return r, nil
	}
	if b == 0 {
		return 0, errors.New("division by zero")
	}
	if a == math.MinInt64 && b == -1 {
		return 0, overflow
	}
	if op == "/" {
		return a / b, nil
	}
	return a % b, nil
}

// Tokens.

type tokKind uint8

const (
	tokEnd tokKind = iota
	tokInt
	tokDouble
	tokIdent
	tokOp // + - * / % ( ) ,
)

type token struct {
	kind tokKind
	text string
	pos  int
}

func (t token) String() string {
	if t.kind == tokEnd {
		return "end of expression"
	}
	return fmt.Sprintf("%q at %d", t.text, t.pos+1)
}

type exprParser struct {
	text string
	pos  int
	tok  token
}

func (p *exprParser) errorf(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// next reads the next token into p.tok; a character the grammar does not
// know becomes an operator token the parser then refuses.
func (p *exprParser) next() {
	for p.pos < len(p.text) && strings.IndexByte(" \t\r\n", p.text[p.pos]) >= 0 {
		p.pos++
	}
	start := p.pos
	if p.pos >= len(p.text) {
		p.tok = token{kind: tokEnd, pos: start}
		return
	}
	c := p.text[p.pos]
	switch {
	case isDigit(c) || (c == '.' && p.pos+1 < len(p.text) && isDigit(p.text[p.pos+1])):
		kind := tokInt
		for p.pos < len(p.text) && (isDigit(p.text[p.pos]) || p.text[p.pos] == '.' || p.text[p.pos] == 'e' || p.text[p.pos] == 'E' ||
			((p.text[p.pos] == '+' || p.text[p.pos] == '-') && (p.text[p.pos-1] == 'e' || p.text[p.pos-1] == 'E'))) {
			if !isDigit(p.text[p.pos]) {
				kind = tokDouble
			}
			p.pos++
		}
		p.tok = token{kind: kind, text: p.text[start:p.pos], pos: start}
	case c == '_' || isLetter(c):
		for p.pos < len(p.text) && (p.text[p.pos] == '_' || isLetter(p.text[p.pos]) || isDigit(p.text[p.pos])) {
			p.pos++
		}
		p.tok = token{kind: tokIdent, text: p.text[start:p.pos], pos: start}
	default:
		p.pos++
		// Two-character operators are read whole so that they are refused
		// by name ("==", "&&").
		if p.pos < len(p.text) && strings.Contains("=&|<>!", string(c)) && strings.Contains("=&|", string(p.text[p.pos])) {
			p.pos++
		}
		p.tok = token{kind: tokOp, text: p.text[start:p.pos], pos: start}
	}
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func (p *exprParser) isOp(ops string) bool {
	return p.tok.kind == tokOp && len(p.tok.text) == 1 && strings.Contains(ops, p.tok.text)
}

// sum is product (("+" | "-") product)*.
func (p *exprParser) sum(depth int) (*exprNode, error) {
	return p.binary(depth, "+-", p.product)
}

// product is unary (("*" | "/" | "%") unary)*.
func (p *exprParser) product(depth int) (*exprNode, error) {
	return p.binary(depth, "*/%", p.unary)
}

func (p *exprParser) binary(depth int, ops string, operand func(int) (*exprNode, error)) (*exprNode, error) {
	if depth > maxKubeletExpressionDepth {
		return nil, p.errorf("nested more than %d deep", maxKubeletExpressionDepth)
	}
	left, err := operand(depth + 1)
	if err != nil {
		return nil, err
	}
	for p.isOp(ops) {
		op := p.tok
		p.next()
		right, err := operand(depth + 1)
		if err != nil {
			return nil, err
		}
		if left.double != right.double {
			return nil, p.errorf("%s: whole numbers and decimals do not mix (convert with double() or int())", op)
		}
		if op.text == "%" && left.double {
			return nil, p.errorf("%s: %% takes whole numbers", op)
		}
		left = &exprNode{kind: exprBinary, double: left.double, name: op.text, args: []*exprNode{left, right}}
	}
	return left, nil
}

// unary is "-" unary | primary.
func (p *exprParser) unary(depth int) (*exprNode, error) {
	if depth > maxKubeletExpressionDepth {
		return nil, p.errorf("nested more than %d deep", maxKubeletExpressionDepth)
	}
	if p.isOp("-") {
		p.next()
		arg, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &exprNode{kind: exprNeg, double: arg.double, args: []*exprNode{arg}}, nil
	}
	return p.primary(depth)
}

// primary is a number, a variable, a call or a parenthesized sum.
func (p *exprParser) primary(depth int) (*exprNode, error) {
	tok := p.tok
	switch tok.kind {
	case tokInt:
		p.next()
		i, err := strconv.ParseInt(tok.text, 10, 64)
		if err != nil {
			return nil, p.errorf("%s: not a 64-bit whole number", tok)
		}
		return &exprNode{kind: exprInt, i: i}, nil
	case tokDouble:
		p.next()
		f, err := strconv.ParseFloat(tok.text, 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, p.errorf("%s: not a number", tok)
		}
		return &exprNode{kind: exprDouble, double: true, f: f}, nil
	case tokIdent:
		p.next()
		if p.isOp("(") {
			return p.call(tok, depth)
		}
		for _, name := range kubeletVarNames {
			if tok.text == name {
				return &exprNode{kind: exprVar, name: name}, nil
			}
		}
		return nil, p.errorf("%s: unknown variable (use %s)", tok, strings.Join(kubeletVarNames, ", "))
	case tokOp:
		if p.isOp("(") {
			p.next()
			inner, err := p.sum(depth + 1)
			if err != nil {
				return nil, err
			}
			if !p.isOp(")") {
				return nil, p.errorf("expected \")\", found %s", p.tok)
			}
			p.next()
			return inner, nil
		}
	}
	return nil, p.errorf("unexpected %s (karpsim reads numbers, variables, + - * / %%, min, max, int and double)", tok)
}

// call parses the arguments of the function name and checks them.
func (p *exprParser) call(name token, depth int) (*exprNode, error) {
	arity := map[string]int{"min": 2, "max": 2, "int": 1, "double": 1}[name.text]
	if arity == 0 {
		return nil, p.errorf("%s: unknown function (use min, max, int or double)", name)
	}
	p.next() // "("
	var args []*exprNode
	for {
		arg, err := p.sum(depth + 1)
		if err != nil {
			return nil, err
		}
		args = append(args, arg)
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	if !p.isOp(")") {
		return nil, p.errorf("expected \")\" closing %s, found %s", name, p.tok)
	}
	p.next()
	if len(args) != arity {
		return nil, p.errorf("%s takes %d arguments, not %d", name, arity, len(args))
	}
	n := &exprNode{kind: exprCall, name: name.text, args: args}
	switch name.text {
	case "double":
		n.double = true
	case "min", "max":
		n.double = args[0].double || args[1].double
	}
	return n, nil
}
