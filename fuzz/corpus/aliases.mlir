#map = {kind = "alias", n = 3 : i32}
#list = [#map, #map]
!vec = tensor<8xf32>
!pair = tuple<!vec, !vec>
func.func @a(%arg0: !vec) -> !vec attributes {meta = #list} {
  %0 = "t.use"(%arg0) {m = #map, p = !pair} : (!vec) -> !vec
  return %0 : !vec
}
