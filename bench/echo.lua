return function(input) return input end
