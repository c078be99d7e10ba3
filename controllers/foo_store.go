/*
Copyright 2026 The Foo Operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controllers

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// perFoo holds a value for each Foo, by namespace and name, for the reconciler's workers
// to share between passes. The zero value is empty and ready to use.
type perFoo[V any] struct {
	mu    sync.Mutex
	byFoo map[types.NamespacedName]V
}

// load is foo's value, and whether it has one.
func (m *perFoo[V]) load(foo types.NamespacedName) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.byFoo[foo]
	return v, ok
}

// read runs f on foo's value (ok: whether it has one) under the lock, for values that
// point to what change may still write.
func (m *perFoo[V]) read(foo types.NamespacedName, f func(v V, ok bool)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.byFoo[foo]
	f(v, ok)
}

// store makes v foo's value.
func (m *perFoo[V]) store(foo types.NamespacedName, v V) {
	m.change(foo, func(V, bool) (V, bool) { return v, true })
}

// change gives foo the value f returns for its value (ok: whether it has one), or none
// when f does not keep it. f runs under the lock, so that reading and writing a value are
// one step.
func (m *perFoo[V]) change(foo types.NamespacedName, f func(v V, ok bool) (next V, keep bool)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.byFoo[foo]
	next, keep := f(v, ok)
	if !keep {
		delete(m.byFoo, foo)
		return
	}
	if m.byFoo == nil {
		m.byFoo = map[types.NamespacedName]V{}
	}
	m.byFoo[foo] = next
}

// size is how many Foos have a value.
func (m *perFoo[V]) size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byFoo)
}

// forget drops what is remembered of a Foo that is gone.
func (m *perFoo[V]) forget(foo types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byFoo, foo)
}
