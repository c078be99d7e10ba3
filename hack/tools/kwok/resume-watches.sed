# Applied to kwok 0.8.0's pkg/utils/informer/event.go when the Makefile builds kwok, in a copy
# of its module in a temporary directory (nothing of kwok is copied into this repository).
#
# kwok's Option.setup, which its informers call before every list AND every watch, sets
# resourceVersion 0 whenever the list pager is off (its watch of pods), so each watch kwok
# begins (client-go times one out every 5 to 10 minutes) starts with kube-apiserver sending
# it every pod again. At 20,000 pods kwok reads them for seconds; if pods change faster
# meanwhile than kube-apiserver's buffer for the watch holds, it closes the watch for
# falling behind (apiserver_terminated_watchers_total), kwok watches again from every pod
# again, and so on for as long as pods change that fast: in make bench's 10,000-Foo scale
# kwok then spent minutes of CPU, kube-apiserver served a watch of 20,000 pods every 3 to 5 s,
# and kwok played pod-ready again on old copies of pods it had made ready
# (docs/benchmark-history.md). No later kwok changes this line.
#
# The line below keeps resourceVersion 0 only where the caller gave none (kwok's sync of a
# node's pods; client-go's list again after its resourceVersion expired), so a watch resumes
# where the last one ended; client-go's first list asks for 0 itself.
s/^\tif !o\.EnableListPager || o\.EnableStreamWatch {$/\tif (!o.EnableListPager || o.EnableStreamWatch) \&\& opts.ResourceVersion == "" {/
