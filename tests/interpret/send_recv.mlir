// stablehlo.send / stablehlo.recv inside interpreter.run_parallel: a send
// meets a recv of the same channel id (whatever the channel type, host
// transfer or not), in order; variadic values; token threading through
// after_all; devices that talk while others run collectives over their own
// groups.  Expected values are written out by hand.

module @same_channel_in_order {
  func.func @sender(%x: tensor<3xi32>, %t: !stablehlo.token) -> !stablehlo.token {
    %t1 = "stablehlo.send"(%x, %t) {
      channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>
    } : (tensor<3xi32>, !stablehlo.token) -> !stablehlo.token
    %c = stablehlo.constant dense<[7, 8, 9]> : tensor<3xi32>
    %t2 = "stablehlo.send"(%c, %t1) {
      channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>
    } : (tensor<3xi32>, !stablehlo.token) -> !stablehlo.token
    return %t2 : !stablehlo.token
  }
  func.func @receiver(%x: tensor<3xi32>, %t: !stablehlo.token) -> (tensor<3xi32>, tensor<3xi32>) {
    %a:2 = "stablehlo.recv"(%t) {
      channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>
    } : (!stablehlo.token) -> (tensor<3xi32>, !stablehlo.token)
    %b:2 = "stablehlo.recv"(%a#1) {
      channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>
    } : (!stablehlo.token) -> (tensor<3xi32>, !stablehlo.token)
    %d = stablehlo.subtract %b#0, %a#0 : tensor<3xi32>
    return %a#0, %d : tensor<3xi32>, tensor<3xi32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
    %y = stablehlo.constant dense<[0, 0, 0]> : tensor<3xi32>
    %t = stablehlo.after_all : !stablehlo.token
    // One replica, two partitions: partition 0 sends, partition 1 receives.
    %r:3 = "interpreter.run_parallel"(%x, %t, %y, %t) {
      programs = [[@sender, @receiver]]
    } : (tensor<3xi32>, !stablehlo.token, tensor<3xi32>, !stablehlo.token) -> (!stablehlo.token, tensor<3xi32>, tensor<3xi32>)
    check.expect_eq_const %r#1, dense<[1, 2, 3]> : tensor<3xi32>
    check.expect_eq_const %r#2, dense<[6, 6, 6]> : tensor<3xi32>
    func.return
  }
}

// -----

// Several values in one send (float and integer), host-transfer channel
// types, and a token joined with after_all before the send.
module @variadic_host_transfer {
  func.func @send2(%f: tensor<2x2xf32>, %i: tensor<i64>, %t: !stablehlo.token) -> !stablehlo.token {
    %u = stablehlo.after_all : !stablehlo.token
    %j = stablehlo.after_all %t, %u : !stablehlo.token
    %r = "stablehlo.send"(%f, %i, %j) {
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>,
      is_host_transfer = true
    } : (tensor<2x2xf32>, tensor<i64>, !stablehlo.token) -> !stablehlo.token
    return %r : !stablehlo.token
  }
  func.func @recv2(%f: tensor<2x2xf32>, %i: tensor<i64>, %t: !stablehlo.token) -> (tensor<2x2xf32>, tensor<i64>, !stablehlo.token) {
    %r:3 = "stablehlo.recv"(%t) {
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>,
      is_host_transfer = true
    } : (!stablehlo.token) -> (tensor<2x2xf32>, tensor<i64>, !stablehlo.token)
    return %r#0, %r#1, %r#2 : tensor<2x2xf32>, tensor<i64>, !stablehlo.token
  }
  func.func @main() {
    %f = stablehlo.constant dense<[[1.5, -2.0], [0.25, 8.0]]> : tensor<2x2xf32>
    %g = stablehlo.constant dense<0.0> : tensor<2x2xf32>
    %i = stablehlo.constant dense<-9000000000> : tensor<i64>
    %z = stablehlo.constant dense<0> : tensor<i64>
    %t = stablehlo.after_all : !stablehlo.token
    // Receiver first in the grid: the pairing does not depend on device order.
    %r:4 = "interpreter.run_parallel"(%g, %z, %t, %f, %i, %t) {
      programs = [[@recv2], [@send2]]
    } : (tensor<2x2xf32>, tensor<i64>, !stablehlo.token, tensor<2x2xf32>, tensor<i64>, !stablehlo.token) ->
        (tensor<2x2xf32>, tensor<i64>, !stablehlo.token, !stablehlo.token)
    check.expect_eq_const %r#0, dense<[[1.5, -2.0], [0.25, 8.0]]> : tensor<2x2xf32>
    check.expect_eq_const %r#1, dense<-9000000000> : tensor<i64>
    func.return
  }
}

// -----

// A pipeline over four devices: each receives from the previous one, adds
// its replica id, and sends on to the next on its own channel.
module @pipeline {
  func.func @first(%x: tensor<2xui32>, %t: !stablehlo.token) -> tensor<2xui32> {
    %s = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} :
        (tensor<2xui32>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%s) {channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>} :
        (!stablehlo.token) -> (tensor<2xui32>, !stablehlo.token)
    return %r#0 : tensor<2xui32>
  }
  func.func @stage1(%x: tensor<2xui32>, %t: !stablehlo.token) -> tensor<2xui32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %ch = stablehlo.broadcast_in_dim %id, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %a:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} :
        (!stablehlo.token) -> (tensor<2xui32>, !stablehlo.token)
    %b = stablehlo.add %a#0, %ch : tensor<2xui32>
    %s = "stablehlo.send"(%b, %a#1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} :
        (tensor<2xui32>, !stablehlo.token) -> !stablehlo.token
    return %b : tensor<2xui32>
  }
  func.func @stage2(%x: tensor<2xui32>, %t: !stablehlo.token) -> tensor<2xui32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %ch = stablehlo.broadcast_in_dim %id, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %a:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} :
        (!stablehlo.token) -> (tensor<2xui32>, !stablehlo.token)
    %b = stablehlo.add %a#0, %ch : tensor<2xui32>
    %s = "stablehlo.send"(%b, %a#1) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>} :
        (tensor<2xui32>, !stablehlo.token) -> !stablehlo.token
    return %b : tensor<2xui32>
  }
  func.func @stage3(%x: tensor<2xui32>, %t: !stablehlo.token) -> tensor<2xui32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %ch = stablehlo.broadcast_in_dim %id, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %a:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>} :
        (!stablehlo.token) -> (tensor<2xui32>, !stablehlo.token)
    %b = stablehlo.add %a#0, %ch : tensor<2xui32>
    %s = "stablehlo.send"(%b, %a#1) {channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>} :
        (tensor<2xui32>, !stablehlo.token) -> !stablehlo.token
    return %b : tensor<2xui32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[100, 200]> : tensor<2xui32>
    %t = stablehlo.after_all : !stablehlo.token
    // Device 0 starts the ring and gets back 100 + 1 + 2 + 3 (replicas 1..3).
    %r:4 = "interpreter.run_parallel"(%x, %t, %x, %t, %x, %t, %x, %t) {
      programs = [[@first], [@stage1], [@stage2], [@stage3]]
    } : (tensor<2xui32>, !stablehlo.token, tensor<2xui32>, !stablehlo.token, tensor<2xui32>, !stablehlo.token,
         tensor<2xui32>, !stablehlo.token) -> (tensor<2xui32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>)
    check.expect_eq_const %r#0, dense<[106, 206]> : tensor<2xui32>
    check.expect_eq_const %r#1, dense<[101, 201]> : tensor<2xui32>
    check.expect_eq_const %r#2, dense<[103, 203]> : tensor<2xui32>
    check.expect_eq_const %r#3, dense<[106, 206]> : tensor<2xui32>
    func.return
  }
}

// -----

// Disjoint groups do not wait on each other: replicas 0 and 1 run an
// all_reduce over their group while replicas 2 and 3 run other programs
// (an all_gather over their own group, then a send/recv between them).
module @disjoint_groups {
  func.func @reducer(%x: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %m = stablehlo.maximum %a, %b : tensor<f32>
        stablehlo.return %m : tensor<f32>
    }) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
  func.func @gather_send(%x: tensor<2xf32>) -> tensor<2xf32> {
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[3, 2]]> : tensor<1x2xi64>} :
        (tensor<2xf32>) -> tensor<4xf32>
    %t = stablehlo.after_all : !stablehlo.token
    %s = "stablehlo.send"(%g, %t) {channel_handle = #stablehlo.channel_handle<handle = 9, type = 1>} :
        (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %h = stablehlo.slice %g [0:2] : (tensor<4xf32>) -> tensor<2xf32>
    return %h : tensor<2xf32>
  }
  func.func @gather_recv(%x: tensor<2xf32>) -> tensor<2xf32> {
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[3, 2]]> : tensor<1x2xi64>} :
        (tensor<2xf32>) -> tensor<4xf32>
    %t = stablehlo.after_all : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 9, type = 1>} :
        (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    %d = stablehlo.subtract %r#0, %g : tensor<4xf32>
    %h = stablehlo.slice %d [2:4] : (tensor<4xf32>) -> tensor<2xf32>
    return %h : tensor<2xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1.0, 8.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[4.0, 2.0]> : tensor<2xf32>
    %c = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
    %d = stablehlo.constant dense<[30.0, 40.0]> : tensor<2xf32>
    %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {
      programs = [[@reducer], [@reducer], [@gather_recv], [@gather_send]]
    } : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    check.expect_eq_const %r#0, dense<[4.0, 8.0]> : tensor<2xf32>
    check.expect_eq_const %r#1, dense<[4.0, 8.0]> : tensor<2xf32>
    // Both gather [x3, x2] = [30, 40, 10, 20]; the received copy equals it.
    check.expect_eq_const %r#2, dense<[0.0, 0.0]> : tensor<2xf32>
    check.expect_eq_const %r#3, dense<[30.0, 40.0]> : tensor<2xf32>
    func.return
  }
}
