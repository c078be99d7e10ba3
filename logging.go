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

package main

import (
	"github.com/go-logr/logr"
	uberzap "go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// newLogger is the operator's logger: controller-runtime's zap logger, configured by the
// --zap-* flags, whose key-value pairs are encoded only when a line is written.
// controller-runtime gives every reconcile a logger with the Foo and a reconcile ID, and
// most reconciles write no line at the shipped level; encoding the pairs at once was an
// allocation per reconcile that the garbage collector then paid for again. So a value given
// to WithValues is encoded as it is when the first line is written: give it values that do
// not change (klog.KObj, strings), as the operator does. zap 1.28 or later: before it, a
// lazy core's Enabled raced with its first write.
func newLogger(opts *zap.Options) logr.Logger {
	return zap.New(zap.UseFlagOptions(opts), zap.RawZapOpts(uberzap.WrapCore(func(c zapcore.Core) zapcore.Core {
		return lazyFields{c}
	})))
}

// lazyFields is a zapcore.Core whose With keeps the fields unencoded until the core
// writes, with zap's own zapcore.NewLazyWith, at every level of With.
type lazyFields struct{ zapcore.Core }

func (c lazyFields) With(fields []zapcore.Field) zapcore.Core {
	return lazyFields{zapcore.NewLazyWith(c.Core, fields)}
}
