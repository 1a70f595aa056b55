package codec

// AssetLimitsRecord is the stored form of the limits of an operation in an
// asset: {"min"?,"max"?}, each a decimal text at the asset's decimals,
// absent when unset.
type AssetLimitsRecord struct {
	Min *string `json:"min,omitempty"`
	Max *string `json:"max,omitempty"`
}
