"""What benches and tests share (as Nameko ships `nameko.testing`): the waiter, free ports and a
test's container processes, the people of a test cluster, the web server pod, the replicated
store's failover kit and the linearizability checker. Product code never imports it, nor `tests`;
it may stand on every product package. Starting actors is `runtime.spawn`; the broker's side of
the kit (a plain connection, removing a cluster's names) is `bus.testkit`, as only `bus` imports pika."""
