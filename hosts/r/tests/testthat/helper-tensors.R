.tensor_info_address <- function(t) .Call(tsbridge:::tsbr_tensor_info, t)$address
