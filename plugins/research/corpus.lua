-- The offline fixture behind the research tools: a few encyclopedia entries, papers and web pages.
return {
  topics = {
    {
      names = { "transformer" },
      summary = "The transformer is a neural network architecture built on self-attention, introduced in 2017 by "
        .. "Vaswani et al. at Google in the paper 'Attention Is All You Need'.",
    },
    {
      names = { "bert" },
      summary = "BERT is a transformer encoder pre-trained on masked language modelling, published by Devlin et al. "
        .. "at Google in 2018 in the paper 'BERT: Pre-training of Deep Bidirectional Transformers for Language "
        .. "Understanding'.",
    },
    {
      names = { "alphafold", "protein folding" },
      summary = "AlphaFold is DeepMind's protein structure predictor; AlphaFold 2 was described in Nature in 2021 "
        .. "in the paper 'Highly accurate protein structure prediction with AlphaFold'.",
    },
    {
      names = { "crispr" },
      summary = "CRISPR-Cas9 genome editing was shown programmable by Jinek, Charpentier, Doudna et al. in 2012 in "
        .. "the paper 'A Programmable Dual-RNA-Guided DNA Endonuclease in Adaptive Bacterial Immunity'.",
    },
  },
  papers = {
    {
      title = "Attention Is All You Need",
      authors = "Vaswani, Shazeer, Parmar, Uszkoreit, Jones, Gomez, Kaiser, Polosukhin",
      year = 2017, venue = "NeurIPS", keywords = "transformer self-attention translation",
    },
    {
      title = "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
      authors = "Devlin, Chang, Lee, Toutanova",
      year = 2018, venue = "NAACL", keywords = "transformer encoder pre-training masked language model",
    },
    {
      title = "Highly accurate protein structure prediction with AlphaFold",
      authors = "Jumper, Evans, Pritzel et al.",
      year = 2021, venue = "Nature", keywords = "alphafold protein folding structure",
    },
    {
      title = "A Programmable Dual-RNA-Guided DNA Endonuclease in Adaptive Bacterial Immunity",
      authors = "Jinek, Chylinski, Fonfara, Hauer, Doudna, Charpentier",
      year = 2012, venue = "Science", keywords = "crispr cas9 genome editing",
    },
  },
  pages = {
    {
      keywords = { "nobel", "chemistry", "2020" },
      title = "nobelprize.org",
      snippet = "The Nobel Prize in Chemistry 2020 was awarded to Emmanuelle Charpentier and Jennifer A. Doudna "
        .. "for the development of a method for genome editing.",
    },
    {
      keywords = { "nobel", "chemistry", "2024", "protein" },
      title = "nobelprize.org",
      snippet = "The Nobel Prize in Chemistry 2024 went to David Baker for computational protein design, and to "
        .. "Demis Hassabis and John Jumper for protein structure prediction.",
    },
  },
}
