package picker

// SetItems replaces the picker's items, as when a search it waited on
// (the model servers on this machine) has come back: the cursor stays
// on the item of the same name and group, else where it was.
func (m *Model) SetItems(items []Item) {
	cur := m.current()
	m.items = items
	m.cursor = min(m.cursor, max(len(items)-1, 0))
	for i, it := range items {
		if it.Name == cur.Name && it.Group == cur.Group {
			m.cursor = i
		}
	}
}

// Items returns the picker's items.
func (m Model) Items() []Item { return m.items }
