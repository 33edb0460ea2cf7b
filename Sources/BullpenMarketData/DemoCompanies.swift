import BullpenCore

/// A company of the demo exchange. Every name, ticker and description is invented.
struct DemoCompany: Sendable {
    var symbol: String
    var name: String
    var sector: DemoSector
    var industry: String
    var headquarters: String
    var founded: String
    var description: String
    /// First trading day, when the company listed after 1990.
    var listed: SessionDate?
    /// Price on its first day.
    var startPrice: Double
    /// Sensitivity to the market, around its sector's.
    var beta: Double
    /// Yearly drift of its own, on top of the market's.
    var alpha: Double
    /// Typical shares traded a day.
    var volume: Double
}

/// Sectors with the figures measured on the real data pack (daily log returns of its companies,
/// 1990–2017, medians): annualised volatility and correlation with the S&P 500.
enum DemoSector: String, Sendable, CaseIterable {
    case communication = "Communication Services"
    case discretionary = "Consumer Discretionary"
    case staples = "Consumer Staples"
    case energy = "Energy"
    case financials = "Financials"
    case health = "Health Care"
    case industrials = "Industrials"
    case technology = "Information Technology"
    case materials = "Materials"
    case realEstate = "Real Estate"
    case utilities = "Utilities"

    /// Median annualised volatility of the sector's companies in the real pack.
    var volatility: Double {
        switch self {
        case .communication: 0.304
        case .discretionary: 0.357
        case .staples: 0.245
        case .energy: 0.376
        case .financials: 0.365
        case .health: 0.334
        case .industrials: 0.305
        case .technology: 0.487
        case .materials: 0.307
        case .realEstate: 0.318
        case .utilities: 0.225
        }
    }

    /// Median correlation of the sector's companies with the S&P 500 in the real pack.
    var correlation: Double {
        switch self {
        case .communication: 0.54
        case .discretionary: 0.48
        case .staples: 0.43
        case .energy: 0.45
        case .financials: 0.61
        case .health: 0.43
        case .industrials: 0.56
        case .technology: 0.49
        case .materials: 0.57
        case .realEstate: 0.54
        case .utilities: 0.43
        }
    }

    /// Median beta to the S&P 500 in the real pack.
    var beta: Double {
        switch self {
        case .communication: 0.93
        case .discretionary: 1.07
        case .staples: 0.63
        case .energy: 1.00
        case .financials: 1.23
        case .health: 0.78
        case .industrials: 0.99
        case .technology: 1.34
        case .materials: 0.91
        case .realEstate: 1.04
        case .utilities: 0.57
        }
    }
}

extension DemoCompany {
    static func listed(_ y: Int, _ m: Int, _ d: Int) -> SessionDate { SessionDate(year: y, month: m, day: d) }

    /// The demo exchange's listing: 41 invented companies across all eleven sectors.
    static let all: [DemoCompany] = [
        // Information Technology
        .init(symbol: "HMCR", name: "Halcyon Microsystems", sector: .technology, industry: "Semiconductors",
              headquarters: "Sunnyvale, California", founded: "1979",
              description: "Designs low-power processors for phones, cars and data centres, made by contract foundries.",
              listed: nil, startPrice: 6.40, beta: 1.45, alpha: 0.04, volume: 9_000_000),
        .init(symbol: "VTSW", name: "Vantor Software", sector: .technology, industry: "Application Software",
              headquarters: "Austin, Texas", founded: "1984",
              description: "Sells accounting and payroll software to small and mid-sized businesses, now mostly as subscriptions.",
              listed: nil, startPrice: 11.20, beta: 1.20, alpha: 0.03, volume: 4_500_000),
        .init(symbol: "QFSC", name: "Quillfeather Semiconductor", sector: .technology, industry: "Semiconductor Equipment",
              headquarters: "Portland, Oregon", founded: "1971",
              description: "Builds the etching and inspection machines that chip factories use; orders swing with the chip cycle.",
              listed: nil, startPrice: 14.75, beta: 1.55, alpha: 0.01, volume: 3_200_000),
        .init(symbol: "BLTN", name: "Brightlattice Networks", sector: .technology, industry: "Communications Equipment",
              headquarters: "Raleigh, North Carolina", founded: "1988",
              description: "Makes routers and switches for telecom carriers and large enterprises.",
              listed: nil, startPrice: 8.10, beta: 1.50, alpha: -0.02, volume: 6_000_000),
        .init(symbol: "CBWV", name: "Cobaltwave Computing", sector: .technology, industry: "Technology Hardware",
              headquarters: "San Jose, California", founded: "1993",
              description: "Sells storage systems and servers, and increasingly the software that manages them.",
              listed: listed(1996, 6, 14), startPrice: 18.00, beta: 1.40, alpha: 0.02, volume: 5_000_000),
        .init(symbol: "NMBR", name: "Numberwell Analytics", sector: .technology, industry: "IT Consulting & Other Services",
              headquarters: "Arlington, Virginia", founded: "1969",
              description: "Runs data centres and writes software for governments, banks and insurers under long contracts.",
              listed: nil, startPrice: 21.30, beta: 0.95, alpha: 0.00, volume: 2_400_000),
        // Communication Services
        .init(symbol: "SKLM", name: "Skylark Media", sector: .communication, industry: "Broadcasting",
              headquarters: "New York, New York", founded: "1952",
              description: "Owns television stations, cable channels and a film library.",
              listed: nil, startPrice: 17.60, beta: 0.95, alpha: -0.01, volume: 3_000_000),
        .init(symbol: "PRLT", name: "Parlance Telecom", sector: .communication, industry: "Integrated Telecommunication Services",
              headquarters: "Dallas, Texas", founded: "1946",
              description: "Provides wireless, broadband and business phone service across the southern states.",
              listed: nil, startPrice: 24.00, beta: 0.75, alpha: -0.01, volume: 7_000_000),
        .init(symbol: "GLWI", name: "Glowmere Interactive", sector: .communication, industry: "Interactive Media & Services",
              headquarters: "Seattle, Washington", founded: "2001",
              description: "Runs online games and a video platform paid for by advertising and in-game purchases.",
              listed: listed(2005, 3, 15), startPrice: 22.00, beta: 1.30, alpha: 0.06, volume: 8_000_000),
        // Consumer Discretionary
        .init(symbol: "DRHB", name: "Drift & Harbor Apparel", sector: .discretionary, industry: "Apparel, Accessories & Luxury Goods",
              headquarters: "Boston, Massachusetts", founded: "1962",
              description: "Designs outdoor clothing and footwear sold through its own stores and online.",
              listed: nil, startPrice: 9.80, beta: 1.10, alpha: 0.02, volume: 2_800_000),
        .init(symbol: "RDKM", name: "Roadkestrel Motors", sector: .discretionary, industry: "Automobile Manufacturers",
              headquarters: "Auburn Hills, Michigan", founded: "1921",
              description: "Builds pickup trucks, vans and, since the 2010s, electric delivery vehicles.",
              listed: nil, startPrice: 31.50, beta: 1.35, alpha: -0.03, volume: 6_500_000),
        .init(symbol: "PLMV", name: "Plumvale Retail", sector: .discretionary, industry: "Broadline Retail",
              headquarters: "Columbus, Ohio", founded: "1938",
              description: "Operates department stores and a growing online marketplace.",
              listed: nil, startPrice: 19.40, beta: 1.05, alpha: 0.00, volume: 4_000_000),
        .init(symbol: "TDWL", name: "Tidewell Resorts", sector: .discretionary, industry: "Hotels, Resorts & Cruise Lines",
              headquarters: "Orlando, Florida", founded: "1970",
              description: "Owns beach resorts and a small fleet of cruise ships; very sensitive to travel demand.",
              listed: nil, startPrice: 12.90, beta: 1.30, alpha: 0.01, volume: 3_500_000),
        .init(symbol: "LKSH", name: "Larkspur Home Goods", sector: .discretionary, industry: "Home Improvement Retail",
              headquarters: "Atlanta, Georgia", founded: "1978",
              description: "Runs warehouse stores selling tools, lumber and garden supplies.",
              listed: nil, startPrice: 7.25, beta: 1.00, alpha: 0.05, volume: 5_500_000),
        // Consumer Staples
        .init(symbol: "GRFW", name: "Greenfallow Foods", sector: .staples, industry: "Packaged Foods & Meats",
              headquarters: "Minneapolis, Minnesota", founded: "1899",
              description: "Makes cereals, snacks and frozen meals sold in supermarkets worldwide.",
              listed: nil, startPrice: 26.80, beta: 0.60, alpha: 0.02, volume: 3_000_000),
        .init(symbol: "CPKB", name: "Copperkettle Beverages", sector: .staples, industry: "Soft Drinks & Non-alcoholic Beverages",
              headquarters: "Charlotte, North Carolina", founded: "1905",
              description: "Bottles and distributes soft drinks, juices and bottled water.",
              listed: nil, startPrice: 15.60, beta: 0.55, alpha: 0.03, volume: 6_000_000),
        .init(symbol: "HSGR", name: "Hearthstone Grocers", sector: .staples, industry: "Food Retail",
              headquarters: "Boise, Idaho", founded: "1939",
              description: "Runs supermarkets and pharmacies in the western states.",
              listed: nil, startPrice: 13.10, beta: 0.65, alpha: 0.00, volume: 2_500_000),
        .init(symbol: "PCHH", name: "Pinecrest Household", sector: .staples, industry: "Household Products",
              headquarters: "Cincinnati, Ohio", founded: "1887",
              description: "Makes detergents, paper towels and personal care products.",
              listed: nil, startPrice: 29.90, beta: 0.55, alpha: 0.02, volume: 4_200_000),
        // Energy
        .init(symbol: "BSRP", name: "Basalt Ridge Petroleum", sector: .energy, industry: "Integrated Oil & Gas",
              headquarters: "Houston, Texas", founded: "1911",
              description: "Explores for, produces and refines oil and natural gas on four continents.",
              listed: nil, startPrice: 33.40, beta: 0.95, alpha: 0.01, volume: 7_500_000),
        .init(symbol: "SLVN", name: "Solvane Energy", sector: .energy, industry: "Renewable Electricity",
              headquarters: "Denver, Colorado", founded: "2006",
              description: "Develops and operates wind and solar farms and sells power under long contracts.",
              listed: listed(2011, 4, 12), startPrice: 16.00, beta: 1.25, alpha: 0.03, volume: 4_000_000),
        .init(symbol: "NGLP", name: "Northgale Pipelines", sector: .energy, industry: "Oil & Gas Storage & Transportation",
              headquarters: "Tulsa, Oklahoma", founded: "1955",
              description: "Owns gas pipelines and storage caverns and earns fees on what flows through them.",
              listed: nil, startPrice: 18.20, beta: 0.85, alpha: 0.00, volume: 2_600_000),
        // Financials
        .init(symbol: "IBBC", name: "Ironbridge Bancorp", sector: .financials, industry: "Diversified Banks",
              headquarters: "Pittsburgh, Pennsylvania", founded: "1865",
              description: "A regional bank taking deposits and lending to households and businesses.",
              listed: nil, startPrice: 22.70, beta: 1.25, alpha: 0.00, volume: 6_000_000),
        .init(symbol: "MRDI", name: "Meridale Insurance", sector: .financials, industry: "Property & Casualty Insurance",
              headquarters: "Hartford, Connecticut", founded: "1850",
              description: "Insures homes, cars and small businesses; results swing with storm seasons.",
              listed: nil, startPrice: 28.30, beta: 0.95, alpha: 0.01, volume: 2_200_000),
        .init(symbol: "FXGC", name: "Foxgrove Capital", sector: .financials, industry: "Investment Banking & Brokerage",
              headquarters: "New York, New York", founded: "1931",
              description: "Advises on mergers, underwrites securities and runs a retail brokerage.",
              listed: nil, startPrice: 19.50, beta: 1.55, alpha: 0.00, volume: 5_000_000),
        .init(symbol: "STWT", name: "Stillwater Trust", sector: .financials, industry: "Asset Management & Custody Banks",
              headquarters: "Chicago, Illinois", founded: "1889",
              description: "Manages pension money and holds securities for institutions.",
              listed: nil, startPrice: 25.10, beta: 1.10, alpha: 0.01, volume: 1_900_000),
        .init(symbol: "OKHP", name: "Oakhaven Payments", sector: .financials, industry: "Transaction & Payment Processing Services",
              headquarters: "Phoenix, Arizona", founded: "1998",
              description: "Processes card payments for merchants and runs a consumer payments app.",
              listed: listed(2007, 5, 22), startPrice: 20.00, beta: 1.05, alpha: 0.06, volume: 5_500_000),
        // Health Care
        .init(symbol: "CLWT", name: "Calloway Therapeutics", sector: .health, industry: "Pharmaceuticals",
              headquarters: "Princeton, New Jersey", founded: "1919",
              description: "Develops and sells prescription medicines for heart disease, diabetes and cancer.",
              listed: nil, startPrice: 30.20, beta: 0.70, alpha: 0.02, volume: 5_000_000),
        .init(symbol: "VRDM", name: "Veridane Medical", sector: .health, industry: "Health Care Equipment",
              headquarters: "Minneapolis, Minnesota", founded: "1958",
              description: "Makes heart valves, insulin pumps and surgical robots.",
              listed: nil, startPrice: 12.40, beta: 0.85, alpha: 0.04, volume: 3_300_000),
        .init(symbol: "SNCH", name: "Suncourt Health", sector: .health, industry: "Managed Health Care",
              headquarters: "Louisville, Kentucky", founded: "1974",
              description: "Offers health insurance plans to employers and through government programmes.",
              listed: nil, startPrice: 9.60, beta: 0.80, alpha: 0.05, volume: 2_900_000),
        .init(symbol: "MRBB", name: "Mirabel Biologics", sector: .health, industry: "Biotechnology",
              headquarters: "Cambridge, Massachusetts", founded: "1991",
              description: "Researches antibody treatments; its value rides on clinical trial results.",
              listed: listed(1999, 11, 5), startPrice: 14.00, beta: 1.10, alpha: 0.02, volume: 3_800_000),
        .init(symbol: "ASGD", name: "Ashgrove Diagnostics", sector: .health, industry: "Life Sciences Tools & Services",
              headquarters: "San Diego, California", founded: "1966",
              description: "Sells laboratory instruments and the tests run on them.",
              listed: nil, startPrice: 16.70, beta: 0.90, alpha: 0.03, volume: 1_700_000),
        // Industrials
        .init(symbol: "GFAE", name: "Granitefall Aerospace", sector: .industrials, industry: "Aerospace & Defense",
              headquarters: "Wichita, Kansas", founded: "1927",
              description: "Builds business jets, aircraft parts and defence electronics.",
              listed: nil, startPrice: 27.50, beta: 1.05, alpha: 0.02, volume: 3_100_000),
        .init(symbol: "KTRR", name: "Kettering Rail", sector: .industrials, industry: "Rail Transportation",
              headquarters: "Omaha, Nebraska", founded: "1862",
              description: "Runs a freight railroad across the central and western states.",
              listed: nil, startPrice: 23.80, beta: 0.95, alpha: 0.03, volume: 2_700_000),
        .init(symbol: "BSMM", name: "Brassmere Machinery", sector: .industrials, industry: "Construction Machinery & Heavy Transportation Equipment",
              headquarters: "Peoria, Illinois", founded: "1925",
              description: "Makes excavators, mining trucks and engines.",
              listed: nil, startPrice: 20.60, beta: 1.15, alpha: 0.01, volume: 3_600_000),
        .init(symbol: "WSLG", name: "Westerly Logistics", sector: .industrials, industry: "Air Freight & Logistics",
              headquarters: "Memphis, Tennessee", founded: "1971",
              description: "Delivers parcels overnight by air and ground across North America.",
              listed: nil, startPrice: 18.90, beta: 1.00, alpha: 0.02, volume: 2_300_000),
        // Materials
        .init(symbol: "RDCC", name: "Redcliff Chemicals", sector: .materials, industry: "Specialty Chemicals",
              headquarters: "Wilmington, Delaware", founded: "1897",
              description: "Produces coatings, adhesives and industrial gases.",
              listed: nil, startPrice: 24.40, beta: 0.95, alpha: 0.01, volume: 2_500_000),
        .init(symbol: "SLDM", name: "Silverlode Mining", sector: .materials, industry: "Gold",
              headquarters: "Reno, Nevada", founded: "1949",
              description: "Mines gold and silver in Nevada and South America; follows metal prices.",
              listed: nil, startPrice: 11.80, beta: 0.60, alpha: 0.00, volume: 4_400_000),
        // Real Estate
        .init(symbol: "CSPR", name: "Cornerstone Plaza REIT", sector: .realEstate, industry: "Retail REITs",
              headquarters: "Indianapolis, Indiana", founded: "1960",
              description: "Owns shopping centres and leases them to grocers and restaurants.",
              listed: nil, startPrice: 21.00, beta: 1.00, alpha: 0.00, volume: 1_800_000),
        .init(symbol: "HBLP", name: "Harborlight Properties", sector: .realEstate, industry: "Office REITs",
              headquarters: "San Francisco, California", founded: "1982",
              description: "Owns office towers in coastal cities.",
              listed: nil, startPrice: 17.30, beta: 1.10, alpha: -0.01, volume: 1_500_000),
        // Utilities
        .init(symbol: "RVBP", name: "Riverbend Power", sector: .utilities, industry: "Electric Utilities",
              headquarters: "Richmond, Virginia", founded: "1909",
              description: "Generates and delivers electricity to three million customers under state regulation.",
              listed: nil, startPrice: 22.20, beta: 0.55, alpha: 0.01, volume: 2_800_000),
        .init(symbol: "CLSW", name: "Clearspring Water", sector: .utilities, industry: "Water Utilities",
              headquarters: "Camden, New Jersey", founded: "1886",
              description: "Supplies drinking water and treats wastewater in fourteen states.",
              listed: nil, startPrice: 10.50, beta: 0.50, alpha: 0.03, volume: 1_200_000),
    ]
}
