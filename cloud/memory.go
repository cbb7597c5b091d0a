package cloud

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/karpsim/karpsim/instancetypes"
)

// Default launch timings of Memory, in line with what Karpenter sees on EC2
// with AL2023: CreateFleet returns within a couple of seconds, the kubelet
// registers about half a minute later, and the node is Ready with its
// resources reported some ten seconds after that. With the default jitter a
// node is initialized 47–57 s after launch, inside the 45–60 s Karpenter's
// own launch metrics typically show.
const (
	DefaultRegistrationDelay   = 35 * time.Second
	DefaultInitializationDelay = 12 * time.Second
	DefaultLaunchJitter        = 10 * time.Second
	// DefaultInterruptionNotice is EC2's spot interruption warning.
	DefaultInterruptionNotice = 2 * time.Minute
)

// OfferingKey names one offering: what insufficient capacity is tracked by.
type OfferingKey struct {
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone"`
	CapacityType string `json:"capacityType"`
}

// MemoryConfig configures a Memory cloud. The zero value launches
// everything, with the default delays, at the requested price, reading the
// zero time.
type MemoryConfig struct {
	// Clock dates launches; nil reads the zero time.
	Clock Clock
	// Catalog prices instances from its offerings, and refuses offerings it
	// does not have; nil bills the request's price.
	Catalog instancetypes.Catalog
	// RegistrationDelay, InitializationDelay and LaunchJitter time a launch:
	// registered RegistrationDelay + a uniform [0, LaunchJitter) after
	// launch, initialized InitializationDelay after that. Zero means the
	// default; a negative value means none.
	RegistrationDelay, InitializationDelay, LaunchJitter time.Duration
	// Capacity limits how many instances of an offering may run at once;
	// an offering it does not name is unlimited. Deleted instances give
	// their capacity back. An offering's free capacity (its limit less
	// its running instances) is what "capacity" means to the allocation
	// strategies: the depth of its pool.
	Capacity map[OfferingKey]int
	// FailureRate is the probability, drawn from the seeded source, that a
	// launch fails with insufficient capacity whatever Capacity says.
	FailureRate float64
	// Seed seeds the jitter and the failures (PCG).
	Seed uint64
	// InterruptionNotice is how long before termination a spot
	// interruption is announced; zero means DefaultInterruptionNotice.
	InterruptionNotice time.Duration
}

func (c *MemoryConfig) validate() error {
	var errs []error
	if c.FailureRate < 0 || c.FailureRate > 1 {
		errs = append(errs, fmt.Errorf("cloud: FailureRate %v is not in [0, 1]", c.FailureRate))
	}
	for k, n := range c.Capacity {
		if n < 0 {
			errs = append(errs, fmt.Errorf("cloud: Capacity of %s %s in %s is negative (%d)", k.CapacityType, k.InstanceType, k.Zone, n))
		}
	}
	if c.InterruptionNotice < 0 {
		errs = append(errs, fmt.Errorf("cloud: InterruptionNotice %v is negative", c.InterruptionNotice))
	}
	return errors.Join(errs...)
}

func orDefault(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// Call is one recorded call to a Memory cloud.
type Call struct {
	At time.Time `json:"at"`
	// Op is "create", "delete" or "interrupt".
	Op string `json:"op"`
	// Request is set for create.
	Request *LaunchRequest `json:"request,omitempty"`
	// Instance is the instance created, deleted or interrupted; empty when
	// the call failed before one was known.
	Instance string `json:"instance,omitempty"`
	// Error is the call's error, "" when it succeeded.
	Error string `json:"error,omitempty"`
}

// Interruption is a spot interruption notice: the instance is terminated at
// TerminateAt whatever the caller does.
type Interruption struct {
	Instance    Instance  `json:"instance"`
	NoticeAt    time.Time `json:"noticeAt"`
	TerminateAt time.Time `json:"terminateAt"`
}

// Memory is an in-memory cloud: a Launcher whose instances exist as data.
// It is deterministic for a given config and call sequence, and safe for
// concurrent use (a live controller launches while a test interrupts).
type Memory struct {
	mu      sync.Mutex
	cfg     MemoryConfig
	rng     *rand.Rand
	running map[string]Instance
	inUse   map[OfferingKey]int
	calls   []Call
	nextID  uint64
}

var _ Launcher = (*Memory)(nil)

// NewMemory validates cfg and returns an empty cloud. cfg.Capacity is
// copied.
func NewMemory(cfg MemoryConfig) (*Memory, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.Capacity = cloneCapacity(cfg.Capacity)
	cfg.RegistrationDelay = orDefault(cfg.RegistrationDelay, DefaultRegistrationDelay)
	cfg.InitializationDelay = orDefault(cfg.InitializationDelay, DefaultInitializationDelay)
	cfg.LaunchJitter = orDefault(cfg.LaunchJitter, DefaultLaunchJitter)
	cfg.InterruptionNotice = orDefault(cfg.InterruptionNotice, DefaultInterruptionNotice)
	return &Memory{
		cfg:     cfg,
		rng:     rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x6b61727073696d)),
		running: map[string]Instance{},
		inUse:   map[OfferingKey]int{},
	}, nil
}

func cloneCapacity(in map[OfferingKey]int) map[OfferingKey]int {
	out := make(map[OfferingKey]int, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

func (m *Memory) now() time.Time {
	if m.cfg.Clock == nil {
		return time.Time{}
	}
	return m.cfg.Clock.Now()
}

// SetCapacity changes how many instances of an offering may run at once; a
// negative n removes the limit.
func (m *Memory) SetCapacity(k OfferingKey, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n < 0 {
		delete(m.cfg.Capacity, k)
		return
	}
	m.cfg.Capacity[k] = n
}

// Create launches one instance for the request, in one call, as
// CreateFleet does: among the request's offerings (its Overrides, all of
// one capacity type) it takes the one the allocation strategy Karpenter's
// AWS provider asks for picks — LowestPrice for on-demand and reserved,
// PriceCapacityOptimized for spot, by the price the cloud bills, or their
// prioritized forms by the overrides' prices when the request is
// Prioritized — passing over the offerings without capacity. The seeded
// failure rate refuses the first pick, and the fleet picks again among the
// others. The instance reports, as Unavailable, the offerings without
// capacity it would otherwise have preferred; when none has capacity,
// Create fails with *InsufficientCapacityError naming every offering.
func (m *Memory) Create(ctx context.Context, req LaunchRequest) (Instance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	inst, err := m.create(ctx, req, now)
	call := Call{At: now, Op: "create", Request: &req, Instance: inst.ID}
	if err != nil {
		call.Error = err.Error()
	}
	m.calls = append(m.calls, call)
	return inst, err
}

func (m *Memory) create(ctx context.Context, req LaunchRequest, now time.Time) (Instance, error) {
	if err := ctx.Err(); err != nil {
		return Instance{}, err
	}
	offerings := req.Offerings()
	pools := make([]pool, len(offerings))
	for i, o := range offerings {
		if o.CapacityType != offerings[0].CapacityType {
			return Instance{}, fmt.Errorf("cloud: launch of %s: its overrides mix capacity types (%s and %s): a fleet launches one",
				req.NodeClaim, offerings[0].CapacityType, o.CapacityType)
		}
		price, err := m.price(o)
		if err != nil {
			return Instance{}, err
		}
		key := OfferingKey{InstanceType: o.InstanceType, Zone: o.Zone, CapacityType: o.CapacityType}
		pools[i] = pool{key: key, price: price, rank: price, free: -1}
		if req.Prioritized {
			pools[i].rank = o.PricePerHour
		}
		if limit, ok := m.cfg.Capacity[key]; ok {
			pools[i].free = max(limit-m.inUse[key], 0)
		}
	}
	strategy := allocationStrategy(offerings[0].CapacityType, req.Prioritized)
	// The failure draw happens once a launch, whatever it tries, so that
	// one launch's outcome does not shift the random stream of the next; a
	// failed draw is a capacity error on the offering the strategy picks
	// first, and the fleet picks again among the others, as CreateFleet
	// goes on to the next pool.
	fail := m.rng.Float64() < m.cfg.FailureRate
	pick := strategy.pick(pools)
	if fail && pick >= 0 {
		pools[pick].free, pools[pick].failed = 0, true
		pick = strategy.pick(pools)
	}
	if pick < 0 {
		var refused []OfferingKey
		for _, p := range pools {
			refused = append(refused, p.key)
		}
		first := firstRefused(pools)
		err := &InsufficientCapacityError{InstanceType: first.InstanceType, Zone: first.Zone, CapacityType: first.CapacityType}
		if len(offerings) > 1 {
			err.Offerings = refused
		}
		return Instance{}, err
	}
	// What was unavailable: the pool the failure refused, and the pools
	// without capacity that the fleet would have taken before the one it
	// launched, by rank (lowest-price's order; the capacity-optimized
	// strategies pass over lower-ranked pools anyway).
	var unavailable []OfferingKey
	for i, p := range pools {
		if p.failed || (p.free == 0 && cmp.Or(cmp.Compare(p.rank, pools[pick].rank), cmp.Compare(i, pick)) < 0) {
			unavailable = append(unavailable, p.key)
		}
	}
	var jitter time.Duration
	if m.cfg.LaunchJitter > 0 {
		jitter = time.Duration(m.rng.Int64N(int64(m.cfg.LaunchJitter)/int64(time.Second)+1)) * time.Second
	}
	m.nextID++
	registered := now.Add(m.cfg.RegistrationDelay + jitter)
	o := pools[pick]
	inst := Instance{
		ID: fmt.Sprintf("i-%017x", m.nextID), NodeClaim: req.NodeClaim,
		InstanceType: o.key.InstanceType, Zone: o.key.Zone, CapacityType: o.key.CapacityType, PricePerHour: o.price,
		LaunchedAt: now, RegisteredAt: registered, InitializedAt: registered.Add(m.cfg.InitializationDelay),
		Unavailable: unavailable,
	}
	m.running[inst.ID] = inst
	m.inUse[o.key]++
	return inst, nil
}

// pool is one override of a launch as the fleet sees it: its offering,
// the price the cloud bills, what the strategy ranks it by (that price, or
// the override's priority under the prioritized strategies; lower first),
// and its free capacity (-1 unlimited).
type pool struct {
	key         OfferingKey
	price, rank float64
	free        int
	failed      bool
}

// firstRefused is the offering an insufficient-capacity error names: the
// one the seeded failure refused, else the request's first.
func firstRefused(pools []pool) OfferingKey {
	for _, p := range pools {
		if p.failed {
			return p.key
		}
	}
	return pools[0].key
}

// AllocationStrategy is how a fleet chooses among a launch's overrides:
// Karpenter's AWS provider asks CreateFleet for lowest-price on-demand
// (reserved launches too) and price-capacity-optimized spot, and for their
// prioritized forms when a NodeOverlay set the prices
// (LaunchRequest.Prioritized).
type AllocationStrategy string

const (
	// LowestPrice launches the cheapest override with capacity, by the
	// price the cloud bills; ties go to the earlier override.
	LowestPrice AllocationStrategy = "lowest-price"
	// Prioritized is LowestPrice ranked by the overrides' priorities (their
	// PricePerHour) instead.
	Prioritized AllocationStrategy = "prioritized"
	// PriceCapacityOptimized launches from the deepest pools first, and
	// among them the cheapest: in Memory a pool's depth is its free
	// capacity (see MemoryConfig.Capacity), an unlimited pool is deeper
	// than any limited one, and among limited pools those with at least
	// half the free capacity of the deepest count as deep. Ties go to the
	// earlier override.
	PriceCapacityOptimized AllocationStrategy = "price-capacity-optimized"
	// CapacityOptimizedPrioritized is PriceCapacityOptimized ranked by the
	// overrides' priorities instead of the prices billed.
	CapacityOptimizedPrioritized AllocationStrategy = "capacity-optimized-prioritized"
)

// allocationStrategy is the strategy Karpenter's AWS provider asks for a
// capacity type.
func allocationStrategy(capacityType string, prioritized bool) AllocationStrategy {
	switch {
	case capacityType == "spot" && prioritized:
		return CapacityOptimizedPrioritized
	case capacityType == "spot":
		return PriceCapacityOptimized
	case prioritized:
		return Prioritized
	}
	return LowestPrice
}

// pick is the index of the pool the strategy launches, -1 when no pool has
// capacity.
func (s AllocationStrategy) pick(pools []pool) int {
	deep := func(pool) bool { return true }
	if s == PriceCapacityOptimized || s == CapacityOptimizedPrioritized {
		deepest := 0
		for _, p := range pools {
			if p.free < 0 {
				deepest = -1
				break
			}
			deepest = max(deepest, p.free)
		}
		deep = func(p pool) bool {
			if deepest < 0 {
				return p.free < 0
			}
			return 2*p.free >= deepest
		}
	}
	best := -1
	for i, p := range pools {
		if p.free == 0 || !deep(p) {
			continue
		}
		if best < 0 || p.rank < pools[best].rank {
			best = i
		}
	}
	return best
}

// price is the catalog's price of an offering, or the request's when the
// cloud has no catalog.
func (m *Memory) price(o Override) (float64, error) {
	if m.cfg.Catalog == nil {
		return o.PricePerHour, nil
	}
	it, ok := m.cfg.Catalog.Get(o.InstanceType)
	if !ok {
		return 0, fmt.Errorf("cloud: instance type %q is not in the catalog", o.InstanceType)
	}
	for _, off := range it.Offerings {
		if off.Zone == o.Zone && off.CapacityType == o.CapacityType {
			return off.Price, nil
		}
	}
	return 0, fmt.Errorf("cloud: instance type %q has no %s offering in %s", o.InstanceType, o.CapacityType, o.Zone)
}

// Adopt records an instance that was already running when the cloud was
// built (a node the caller's cluster had at the start), so that it can be
// interrupted and deleted like one Create launched. It counts against its
// offering's capacity; adopting an ID twice is an error.
func (m *Memory) Adopt(inst Instance) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if inst.ID == "" {
		return errors.New("cloud: adopt: the instance has no ID")
	}
	if _, dup := m.running[inst.ID]; dup {
		return fmt.Errorf("cloud: adopt %s: already running", inst.ID)
	}
	m.running[inst.ID] = inst
	m.inUse[OfferingKey{InstanceType: inst.InstanceType, Zone: inst.Zone, CapacityType: inst.CapacityType}]++
	return nil
}

// Delete terminates a running instance.
func (m *Memory) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.delete(ctx, id)
	call := Call{At: m.now(), Op: "delete", Instance: id}
	if err != nil {
		call.Error = err.Error()
	}
	m.calls = append(m.calls, call)
	return err
}

func (m *Memory) delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	inst, ok := m.running[id]
	if !ok {
		return fmt.Errorf("cloud: delete %s: %w", id, ErrNotFound)
	}
	delete(m.running, id)
	m.inUse[OfferingKey{InstanceType: inst.InstanceType, Zone: inst.Zone, CapacityType: inst.CapacityType}]--
	return nil
}

// Interrupt announces a spot interruption of a running spot instance: it
// will be terminated InterruptionNotice from now. The instance keeps running
// until the caller deletes it; Memory does not terminate it on its own,
// since only the caller's clock knows when the deadline passes.
func (m *Memory) Interrupt(id string) (Interruption, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	inst, ok := m.running[id]
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("cloud: interrupt %s: %w", id, ErrNotFound)
	case inst.CapacityType != "spot":
		err = fmt.Errorf("cloud: interrupt %s: a %s instance cannot be interrupted", id, inst.CapacityType)
	}
	call := Call{At: now, Op: "interrupt", Instance: id}
	if err != nil {
		call.Error = err.Error()
		m.calls = append(m.calls, call)
		return Interruption{}, err
	}
	m.calls = append(m.calls, call)
	return Interruption{Instance: inst, NoticeAt: now, TerminateAt: now.Add(m.cfg.InterruptionNotice)}, nil
}

// Instances returns the running instances, sorted by ID.
func (m *Memory) Instances() []Instance {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Instance, 0, len(m.running))
	for _, inst := range m.running {
		out = append(out, inst)
	}
	slices.SortFunc(out, func(a, b Instance) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Calls returns every call made so far, in call order.
func (m *Memory) Calls() []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.calls)
}
