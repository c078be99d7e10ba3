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

package framework

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Process is a command running in the background, its standard and error output in a log
// file.
type Process struct {
	// LogPath is its log file.
	LogPath string
	// Started is when it started.
	Started time.Time
	// Exited is when it exited; read it once Done is closed.
	Exited time.Time
	// Done is closed when it has exited.
	Done chan struct{}
	cmd  *exec.Cmd
}

// Start starts command with env added to this process's environment, its output going to
// logPath.
func Start(logPath string, env []string, command string, args ...string) (*Process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	p := &Process{LogPath: logPath, Done: make(chan struct{}), cmd: exec.Command(command, args...)}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = log, log
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	p.Started = time.Now()
	go func() {
		_ = p.cmd.Wait()
		p.Exited = time.Now()
		log.Close()
		close(p.Done)
	}()
	return p, nil
}

// Pid is the process's ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Signal sends sig to the process.
func (p *Process) Signal(sig syscall.Signal) { _ = p.cmd.Process.Signal(sig) }

// Stop stops the process as the kubelet stops a container: SIGTERM, then SIGKILL once grace
// has passed. It returns when the process has exited.
func (p *Process) Stop(grace time.Duration) {
	p.Signal(syscall.SIGTERM)
	select {
	case <-p.Done:
	case <-time.After(grace):
		p.Signal(syscall.SIGKILL)
		<-p.Done
	}
}

// Log is what the process wrote so far.
func (p *Process) Log() string {
	raw, _ := os.ReadFile(p.LogPath)
	return string(raw)
}
