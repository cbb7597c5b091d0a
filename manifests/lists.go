package manifests

import (
	"bytes"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/karpsim/karpsim/apis"
	"sigs.k8s.io/yaml"
)

// A List document (what `kubectl get -o yaml|json` prints) is decoded item
// by item: the document is cut into its items without parsing them, each
// item is parsed and decoded on its own by one of GOMAXPROCS workers, and
// the results are added to the Set in item order, so that the Set, its
// warnings and its errors are the same for any number of workers, and the
// same as decoding the document as a whole. Anything the cutting does not
// expect (a List in flow style, an item that is not an object, a YAML error
// anywhere) sends the whole document down the whole-document path, whose
// messages locate problems by line.

// decodeListDocument decodes doc item by item when it is a List, and
// reports whether it did; false leaves doc to the whole-document path.
func (l *loader) decodeListDocument(doc document) bool {
	if l.reference {
		return false
	}
	var header []byte
	var items [][]byte
	var ok bool
	switch {
	case doc.cut != nil:
		header, items, ok = doc.cut.header, doc.cut.items, true
	case doc.json:
		header, items, _, ok = splitJSONList(doc.data)
	default:
		header, items, ok = splitYAMLList(doc.data)
	}
	if !ok {
		return false
	}
	tree, ok := parseQuiet(header, doc.json)
	if !ok {
		return false
	}
	apiVersion, kind := stringField(tree, "apiVersion"), stringField(tree, "kind")
	if apiVersion == "" || !strings.HasSuffix(kind, "List") {
		return false
	}
	itemKind := strings.TrimSuffix(kind, "List")
	if itemKind == "" {
		apiVersion = ""
	}
	if !l.admit(doc.src, len(items)) {
		return true
	}
	for i, item := range items {
		src := doc.src
		src.Item = i + 1
		if l.objectTooLarge(src, len(item)) {
			return true
		}
	}
	p := l.startItems(doc, apiVersion, itemKind, false)
	for _, item := range items {
		p.submit(item)
	}
	if !p.finish() {
		l.objects -= len(items)
		return false
	}
	l.addItems(p)
	return true
}

// addItems adds a List's decoded items to the loader.
func (l *loader) addItems(p *items) {
	l.absorb(p.into)
	l.listItems += p.n
}

// parseQuiet parses a small document into a tree, reporting nothing: the
// whole-document path reports whatever is wrong with it.
func parseQuiet(data []byte, isJSON bool) (map[string]any, bool) {
	j := data
	if !isJSON {
		var err error
		if j, err = yaml.YAMLToJSONStrict(data); err != nil {
			return nil, false
		}
	}
	var tree map[string]any
	if err := unmarshalTree(j, &tree); err != nil || tree == nil {
		return nil, false
	}
	return tree, true
}

// listWindow is how many items per worker may be decoded ahead of the
// item being added to the Set.
const listWindow = 16

// items decodes the items of one List on GOMAXPROCS workers as they are
// submitted, and adds the results to a loader of its own in item order. A
// stream that meets the List's apiVersion and kind only after its items
// (kubectl prints them last) submits them as provisional: from the first
// item that lacks its own apiVersion or kind on, the results are held, and
// redo decodes those items again once the List is read.
type items struct {
	l           *loader
	doc         document
	apiVersion  string
	itemKind    string
	provisional bool

	jobs    chan itemJob
	pending chan chan itemResult
	done    chan struct{}
	n       int
	into    *loader
	held    []itemResult
	// abandon is set once an item could not be parsed: the List then goes
	// down the whole-document path, and the rest need not be decoded.
	abandon atomic.Bool
	// tiny is set, once finish returns, when an item holds a number
	// tinyExponent refuses: every item is scanned, even once abandoned.
	tiny bool
}

type itemJob struct {
	index int
	data  []byte
	out   chan itemResult
}

// itemResult is one decoded item; loader is nil when the item could not be
// parsed as an object, or holds a number tinyExponent refuses (tiny).
// lacksType is set when the item may not name its own apiVersion and kind,
// so that a typed List's would change how it decodes.
type itemResult struct {
	loader    *loader
	index     int
	data      []byte
	lacksType bool
	tiny      bool
	// problems and run are set instead of loader for held untyped items
	// that found only problems (items.hold): their problems and their jobs.
	problems *Problems
	run      []itemJob
}

func (l *loader) startItems(doc document, apiVersion, itemKind string, provisional bool) *items {
	workers := l.workerCount()
	p := &items{
		l: l, doc: doc, apiVersion: apiVersion, itemKind: itemKind, provisional: provisional,
		jobs:    make(chan itemJob, workers),
		pending: make(chan chan itemResult, workers*listWindow),
		done:    make(chan struct{}),
		into:    l.child(),
	}
	for range workers {
		go func() {
			for job := range p.jobs {
				if p.abandon.Load() {
					_, _, tiny := tinyExponent(job.data)
					job.out <- itemResult{tiny: tiny}
					continue
				}
				job.out <- l.decodeItem(doc, job, p.apiVersion, p.itemKind)
			}
		}()
	}
	go func() {
		for out := range p.pending {
			r := <-out
			p.tiny = p.tiny || r.tiny
			switch {
			case r.loader == nil:
				p.abandon.Store(true)
			case p.abandon.Load():
			case len(p.held) > 0 || p.provisional && r.lacksType:
				p.hold(r)
			default:
				p.into.absorb(r.loader)
			}
		}
		close(p.done)
	}()
	return p
}

// submit queues the next item; it blocks while the workers are a window
// behind.
func (p *items) submit(data []byte) {
	out := make(chan itemResult, 1)
	p.pending <- out
	p.jobs <- itemJob{index: p.n, data: data, out: out}
	p.n++
}

// finish waits for the items submitted and reports whether every one could
// be parsed.
func (p *items) finish() bool {
	close(p.jobs)
	close(p.pending)
	<-p.done
	return !p.abandon.Load()
}

// hold keeps r until the List's header is read. Untyped items whose
// decoding found only problems (no object, no warning: an item without a
// kind) in a row are held as one: their problems, merged as Problems
// bounds them, and their bytes for redo, so that a List of 200,000 such
// items holds megabytes, not a loader each.
func (p *items) hold(r itemResult) {
	if !r.lacksType || r.loader.set.size() > 0 || len(r.loader.set.Warnings) > 0 {
		p.held = append(p.held, r)
		return
	}
	job := itemJob{index: r.index, data: r.data}
	if n := len(p.held); n > 0 && p.held[n-1].problems != nil {
		last := &p.held[n-1]
		last.problems.AddAll(&r.loader.errs)
		last.run = append(last.run, job)
		return
	}
	problems := r.loader.errs
	p.held = append(p.held, itemResult{lacksType: true, problems: &problems, run: []itemJob{job}})
}

// redo decodes again, with the List's apiVersion and item kind, the held
// items that may lack their own (the others decode the same either way),
// and adds the held items; false means one could not be parsed.
func (p *items) redo(apiVersion, itemKind string) bool {
	same := apiVersion == p.apiVersion && itemKind == p.itemKind
	for _, r := range p.held {
		if r.problems != nil {
			if same {
				p.into.errs.AddAll(r.problems)
				continue
			}
			for _, job := range r.run {
				if r = p.l.decodeItem(p.doc, job, apiVersion, itemKind); r.loader == nil {
					return false
				}
				p.into.absorb(r.loader)
			}
			continue
		}
		if r.lacksType && !same {
			if r = p.l.decodeItem(p.doc, itemJob{index: r.index, data: r.data}, apiVersion, itemKind); r.loader == nil {
				return false
			}
		}
		p.into.absorb(r.loader)
	}
	p.held = nil
	return true
}

func (l *loader) workerCount() int {
	if l.workers > 0 {
		return l.workers
	}
	return runtime.GOMAXPROCS(0)
}

// decodeItem parses and decodes one item into a loader of its own; nil
// means the item could not be parsed as an object.
//
// An item of a core kind that decodes strictly (no unknown field, no field
// that does not decode) goes straight from its JSON to its Go type; any
// other item is decoded through a tree, as whole documents are, so that
// every message is the same.
func (l *loader) decodeItem(doc document, job itemJob, apiVersion, itemKind string) itemResult {
	src := doc.src
	src.Item = job.index + 1
	if _, _, found := tinyExponent(job.data); found {
		// Left to the whole-document decoder, which refuses it naming the
		// line (an item streamed as it is read was not scanned as a
		// document).
		return itemResult{tiny: true}
	}
	item := l.child()
	var j []byte
	var version, kind string
	if doc.json {
		var ok bool
		if j, version, kind, ok = leanJSON(job.data); !ok {
			j = job.data
		}
	} else {
		var ok bool
		if j, version, kind, ok = blockYAMLToJSON(job.data); !ok {
			var err error
			if j, err = yaml.YAMLToJSONStrict(stripManagedFieldsYAML(job.data)); err != nil {
				return itemResult{}
			}
			var seq []any
			if err := unmarshalTree(j, &seq); err != nil || len(seq) != 1 {
				return itemResult{}
			}
			obj, _ := seq[0].(map[string]any)
			if obj == nil {
				return itemResult{}
			}
			return item.decodeTree(src, job.data, obj, apiVersion, itemKind)
		}
	}
	if item.decodeStrict(src, j, version, kind) {
		return itemResult{loader: item}
	}
	var obj map[string]any
	if err := unmarshalTree(j, &obj); err != nil || obj == nil {
		return itemResult{}
	}
	return item.decodeTree(src, job.data, obj, apiVersion, itemKind)
}

// decodeTree decodes one List item's tree into the loader.
func (l *loader) decodeTree(src Source, data []byte, obj map[string]any, apiVersion, itemKind string) itemResult {
	lacksType := stringField(obj, "apiVersion") == "" || stringField(obj, "kind") == ""
	l.decodeObject(src, obj, apiVersion, itemKind, 1)
	return itemResult{loader: l, index: src.Item - 1, data: data, lacksType: lacksType}
}

// child returns an empty loader with l's settings, whose results absorb
// adds to l. It interns no strings: the loader at the root does, once.
func (l *loader) child() *loader {
	c := &loader{set: &Set{}}
	c.part, c.limits, c.workers, c.reference, c.readChunk = l.part, l.limits, l.workers, l.reference, l.readChunk
	return c
}

// absorb adds what c decoded to l, after what l holds.
func (l *loader) absorb(c *loader) {
	s, d := c.set, l.set
	if l.strings != nil {
		for _, p := range s.Pods {
			l.strings.pod(p)
		}
		for _, n := range s.Nodes {
			l.strings.meta(&n.ObjectMeta)
		}
	}
	d.NodePools = append(d.NodePools, s.NodePools...)
	d.NodeClaims = append(d.NodeClaims, s.NodeClaims...)
	d.EC2NodeClasses = append(d.EC2NodeClasses, s.EC2NodeClasses...)
	d.AKSNodeClasses = append(d.AKSNodeClasses, s.AKSNodeClasses...)
	d.NodeOverlays = append(d.NodeOverlays, s.NodeOverlays...)
	if s.SchedulerConfig != nil {
		if d.SchedulerConfig != nil {
			l.fail(s.sources[s.SchedulerConfig], apis.KindKubeSchedulerConfiguration, "", ErrInvalid, "a second KubeSchedulerConfiguration: give kube-scheduler's configuration once")
		} else {
			d.SchedulerConfig = s.SchedulerConfig
		}
	}
	d.Services = append(d.Services, s.Services...)
	d.Pods = append(d.Pods, s.Pods...)
	d.Deployments = append(d.Deployments, s.Deployments...)
	d.ReplicaSets = append(d.ReplicaSets, s.ReplicaSets...)
	d.StatefulSets = append(d.StatefulSets, s.StatefulSets...)
	d.Jobs = append(d.Jobs, s.Jobs...)
	d.DaemonSets = append(d.DaemonSets, s.DaemonSets...)
	d.PodDisruptionBudgets = append(d.PodDisruptionBudgets, s.PodDisruptionBudgets...)
	d.Nodes = append(d.Nodes, s.Nodes...)
	d.PersistentVolumes = append(d.PersistentVolumes, s.PersistentVolumes...)
	d.PersistentVolumeClaims = append(d.PersistentVolumeClaims, s.PersistentVolumeClaims...)
	d.StorageClasses = append(d.StorageClasses, s.StorageClasses...)
	d.PodTemplates = append(d.PodTemplates, s.PodTemplates...)
	d.CSINodes = append(d.CSINodes, s.CSINodes...)
	d.CapacityBuffers = append(d.CapacityBuffers, s.CapacityBuffers...)
	d.DeviceClasses = append(d.DeviceClasses, s.DeviceClasses...)
	d.ResourceClaims = append(d.ResourceClaims, s.ResourceClaims...)
	d.ResourceClaimTemplates = append(d.ResourceClaimTemplates, s.ResourceClaimTemplates...)
	d.ResourceSlices = append(d.ResourceSlices, s.ResourceSlices...)
	d.Warnings = append(d.Warnings, s.Warnings...)
	for obj, src := range s.sources {
		d.setSource(obj, src)
	}
	l.errs.AddAll(&c.errs)
	l.unknown = append(l.unknown, c.unknown...)
	l.v1beta1Claims = append(l.v1beta1Claims, c.v1beta1Claims...)
}

// splitYAMLList cuts a block-style YAML List held whole into its items
// (each the text of one "- " entry of the top-level items sequence, a
// sequence of one object when parsed) and the rest of the document, with
// the rules the stream reader cuts Lists with as it reads them (yamlCut).
// ok is false when the document has no such items.
func splitYAMLList(data []byte) (header []byte, items [][]byte, ok bool) {
	collect := &collectItems{}
	y := &yamlReader{lists: collect}
	for pos := 0; pos < len(data); {
		end := lineEnd(data, pos)
		y.add(data[pos:end])
		pos = end
	}
	if y.cut == nil {
		return nil, nil, false
	}
	c := y.endCut()
	return c.header, collect.items, !c.bad && c.items > 0
}

// collectItems is the listSink of splitYAMLList.
type collectItems struct{ items [][]byte }

func (c *collectItems) startList(Source) {}
func (c *collectItems) item(data []byte) { c.items = append(c.items, data) }
func (c *collectItems) abort()           {}

// lineIndent returns a line's indentation, and whether it has content
// (anything but white space or a comment).
func lineIndent(line []byte) (int, bool) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	rest := line[i:]
	content := len(rest) > 0 && rest[0] != '\n' && rest[0] != '\r' && rest[0] != '#'
	return i, content
}

func isItemsKey(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("items:"))
	return ok && len(bytes.TrimSpace(rest)) == 0
}

func isDashLine(line []byte, indent int) bool {
	rest := line[indent:]
	return len(rest) > 0 && rest[0] == '-' && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\n' || rest[1] == '\r')
}
