package mockserver

import (
	crand "crypto/rand"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// idAlphabet is lower-case base32 without the letters easily misread.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// Streams of the seeded ID generators: each sequence draws from a PCG
// stream of its own, so that one sequence's draws never shift another's.
const (
	// resourceIDStream makes the IDs of everything the store holds, and
	// the key that signs listing cursors.
	resourceIDStream = 0x9e3779b97f4a7c15
	// requestIDStream makes the request IDs of answers (X-Request-Id).
	// Every answer draws one, polls and retries included: were they drawn
	// from the resources' stream, the IDs of resources would depend on how
	// many answers came before, which a polling or retrying client changes
	// from run to run.
	requestIDStream = 0xd1b54a32d192ed03
)

// idGen makes the server's IDs: a prefix and 20 characters of base32, 100
// bits of randomness from crypto/rand, or from a seeded generator for
// tests that need the same IDs on every run.
type idGen struct {
	mu  sync.Mutex
	pcg *rand.PCG  // nil: crypto/rand
	rng *rand.Rand // draws from pcg
	// seed and stream are those the seeded generator was made with, and
	// moves how many times it has moved on, for moveOn.
	seed, stream, moves uint64
	// drawn holds crypto/rand bytes not yet used, read idsPerRead IDs at a
	// time: one read costs about what many IDs' worth of bytes do, and
	// every answer draws a request ID.
	drawn   []byte
	drawBuf [idsPerRead * idRandomBytes]byte
}

// idRandomBytes is the random bytes an ID takes, five bits of each;
// idsPerRead, how many IDs' worth of bytes are read from crypto/rand at
// once.
const (
	idRandomBytes = 20
	idsPerRead    = 32
)

// newIDGen returns a generator drawing from crypto/rand, or, with a seed,
// from the given stream of a PCG seeded with it.
func newIDGen(seed *uint64, stream uint64) *idGen {
	g := &idGen{}
	if seed != nil {
		g.seed, g.stream = *seed, stream
		g.pcg = rand.NewPCG(*seed, *seed^stream)
		g.rng = rand.New(g.pcg)
	}
	return g
}

// moveOn moves a seeded generator to a sequence of its own for a restored
// state, named by digest (a digest of the IDs the state holds) and by how
// many times the generator has moved on before: a server started with
// the same seed would otherwise draw again the IDs of the records it
// restored, and a second restore of the same state would draw again the
// IDs drawn since the first (request IDs in the record, IDs of other
// tenants' records, which the restore keeps). The same seed and the same
// restores give the same sequence, so that golden runs across a restart
// stay stable. A generator drawing from crypto/rand needs no moving.
func (g *idGen) moveOn(digest uint64) {
	if g.pcg == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.moves++
	g.pcg.Seed(g.seed^digest^bits.RotateLeft64(g.moves, 17), g.seed^g.stream^bits.RotateLeft64(digest, 32)^g.moves)
}

// next returns prefix followed by 20 random characters.
func (g *idGen) next(prefix string) string {
	var raw [idRandomBytes]byte
	g.mu.Lock()
	if g.rng != nil {
		for i := range raw {
			raw[i] = byte(g.rng.UintN(32))
		}
	} else {
		if len(g.drawn) < len(raw) {
			_, _ = crand.Read(g.drawBuf[:])
			g.drawn = g.drawBuf[:]
		}
		g.drawn = g.drawn[copy(raw[:], g.drawn):]
	}
	g.mu.Unlock()
	var buf [64]byte // on the stack for the usual prefixes
	b := append(buf[:0], prefix...)
	for _, r := range raw {
		b = append(b, idAlphabet[r&31])
	}
	return string(b)
}

// newUUID returns a random version 4 UUID, for generated API keys.
func newUUID() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, x := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[x>>4], hex[x&15])
	}
	return string(out)
}

// isUUID reports whether s is a well-formed UUID in its 36-character form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
