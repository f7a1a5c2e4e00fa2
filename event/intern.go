package event

// Names interns strings. The zero value is not ready; use NewNames.
type Names struct {
	ids  map[string]uint32
	list []string
}

// NewNames returns an empty table whose id 0 is "".
func NewNames() *Names {
	return &Names{ids: map[string]uint32{"": 0}, list: []string{""}}
}

// ID returns the id of s, adding it when new.
func (n *Names) ID(s string) uint32 {
	if id, ok := n.ids[s]; ok {
		return id
	}
	id := uint32(len(n.list))
	n.ids[s] = id
	n.list = append(n.list, s)
	return id
}

// Lookup returns the id of s and whether it is present.
func (n *Names) Lookup(s string) (uint32, bool) {
	id, ok := n.ids[s]
	return id, ok
}

// Name returns the string of id; "" for an unknown id.
func (n *Names) Name(id uint32) string {
	if int(id) < len(n.list) {
		return n.list[id]
	}
	return ""
}

// Len is the number of ids, including 0.
func (n *Names) Len() int { return len(n.list) }

// Shapes interns launch shapes. Use NewShapes.
type Shapes struct {
	ids  map[Shape]uint32
	list []Shape
}

// NewShapes returns an empty table whose id 0 is the zero Shape ("none").
func NewShapes() *Shapes {
	return &Shapes{ids: map[Shape]uint32{{}: 0}, list: []Shape{{}}}
}

// ID returns the id of s, adding it when new.
func (t *Shapes) ID(s Shape) uint32 {
	if id, ok := t.ids[s]; ok {
		return id
	}
	id := uint32(len(t.list))
	t.ids[s] = id
	t.list = append(t.list, s)
	return id
}

// Shape returns the shape of id; the zero Shape for an unknown id.
func (t *Shapes) Shape(id uint32) Shape {
	if int(id) < len(t.list) {
		return t.list[id]
	}
	return Shape{}
}

// Len is the number of ids, including 0.
func (t *Shapes) Len() int { return len(t.list) }
