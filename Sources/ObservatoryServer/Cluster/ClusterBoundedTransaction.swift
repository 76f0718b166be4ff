import ObservatoryEtcd

/// One etcd transaction built to stay within etcd's `--max-txn-ops` (128 by
/// default) where it can: a node writes each changing operation of a `batch`
/// as two etcd operations, so 64 of them already fill a flat transaction.
///
/// etcd counts a transaction's width, the most of its compares, success
/// operations and failure operations, and checks a nested transaction against
/// what is left after the widths of the levels around it: along any path from
/// the outer level inward, the widths add up to at most `limit`. The compares
/// stay in the outer level; a branch wider than that level holds its operations
/// as nested transactions without compares (which always run), as few and as
/// small as fit. It stays one transaction (one revision, all or nothing).
///
/// A transaction with more than about `limit` compares, or too many operations
/// for them (more than 125 compares with the operations of a full batch), cannot
/// fit; it is sent flat, and etcd refuses it unless it was started with a larger
/// `--max-txn-ops`. `fits` tells beforehand, so that a batch can leave out the
/// compares it can do without (`ClusterBatchPlan`).
struct ClusterBoundedTransaction {
    /// etcd's default `--max-txn-ops`.
    static let defaultLimit = 128

    /// The transaction to send.
    let transaction: EtcdTransaction

    /// Builds the transaction of `compares`, applying `success` when all hold
    /// and `failure` otherwise, within `limit` when it can be.
    init(
        compares: [EtcdCompare], success: [EtcdOperation], failure: [EtcdOperation],
        limit: Int = Self.defaultLimit
    ) {
        let widest = max(compares.count, success.count, failure.count)
        guard widest > limit, let width = Self.outerWidth(compares.count, success.count, failure.count, limit: limit)
        else {
            transaction = EtcdTransaction(compares: compares, success: success, failure: failure)
            return
        }
        let inner = limit - width
        transaction = EtcdTransaction(
            compares: compares, success: Self.nested(success, width: width, inner: inner),
            failure: Self.nested(failure, width: width, inner: inner))
    }

    /// Whether a transaction of `compares` compares, `success` and `failure`
    /// operations can be built within `limit`, flat or nested.
    static func fits(compares: Int, success: Int, failure: Int, limit: Int = defaultLimit) -> Bool {
        max(compares, success, failure) <= limit || outerWidth(compares, success, failure, limit: limit) != nil
    }

    /// etcd's answer to `transaction` as if it were flat: whether every compare
    /// held, with the answers of the branch that ran in the order of its operations.
    func outcome(of result: EtcdTransactionResult) -> EtcdTransactionResult {
        EtcdTransactionResult(
            header: result.header, succeeded: result.succeeded, responses: Self.flattened(result.responses))
    }

    /// The smallest width of the outer level that leaves room for branches of
    /// `success` and `failure` operations nested in transactions of at most
    /// `limit` minus that width; `nil` when there is none.
    private static func outerWidth(_ compares: Int, _ success: Int, _ failure: Int, limit: Int) -> Int? {
        guard compares < limit else { return nil }
        for width in max(compares, 1)..<limit {
            let inner = limit - width
            let fits = [success, failure].allSatisfy { $0 <= width || ($0 + inner - 1) / inner <= width }
            if fits { return width }
        }
        return nil
    }

    /// `operations` as they are when they fit in `width`, else as nested
    /// transactions of at most `inner` operations each.
    private static func nested(_ operations: [EtcdOperation], width: Int, inner: Int) -> [EtcdOperation] {
        guard operations.count > width else { return operations }
        return stride(from: 0, to: operations.count, by: inner).map {
            .transaction(EtcdTransaction(success: Array(operations[$0..<min($0 + inner, operations.count)])))
        }
    }

    /// The answers of a branch built by `nested`, in the order of its operations.
    private static func flattened(_ responses: [EtcdOperationResult]) -> [EtcdOperationResult] {
        responses.flatMap { response -> [EtcdOperationResult] in
            if case .transaction(let nested) = response { return nested.responses }
            return [response]
        }
    }
}
