// The spec's receipt DTOs as a .NET vendor declares them: DataContract classes (serialized by
// DataContractSerializer for XML and by Newtonsoft.Json for JSON), members named as the .NET
// core names them, value types where the spec says int, bool or decimal. FeeLineDto and
// InsuranceLineDto derive from ReceiptLineDto ("all ReceiptLineDto fields plus"). Written from
// the spec's tables, not generated from the gateway's schema.
using System.Collections.Generic;
using System.Runtime.Serialization;

namespace CoreBanking.Dto
{
    public static class Contract
    {
        public const string Namespace = "http://schemas.datacontract.org/2004/07/CoreBanking.Dto";
    }

    public enum AWReceiptType { SavingsDeposit = 0, SavingsWithdrawal = 1, LoanRepayment = 2, LoanIssue = 3, SavingsAdjustment = 4, LoanAdjustment = 5, FeePayment = 6, InsurancePayment = 7, Transfer = 8 }
    public enum ProductTypes { ShareSavings = 1, Loan = 2, TermDeposit = 3 }
    public enum LoanStatusReversalOptions { Approved = 0, CancelApplication = 1 }

    [DataContract(Namespace = Contract.Namespace)]
    public class ReceiptLineDto
    {
        [DataMember] public string Name { get; set; }
        [DataMember] public decimal OpenBalance { get; set; }
        [DataMember] public decimal DebitAmount { get; set; }
        [DataMember] public decimal CreditAmount { get; set; }
        [DataMember] public decimal AmountPaid { get; set; }
        [DataMember] public decimal ClosingBalance { get; set; }
        [DataMember] public bool? CanEditAmount { get; set; }
        [DataMember] public string ID { get; set; }
    }

    [DataContract(Namespace = Contract.Namespace)]
    public class FeeLineDto : ReceiptLineDto
    {
        [DataMember] public int CUAccountFeeID { get; set; }
        [DataMember] public int CUFeeID { get; set; }
        [DataMember] public bool ManuallyAdded { get; set; }
        [DataMember] public bool AdjustFee { get; set; }
        [DataMember] public int AccountID { get; set; }
        [DataMember] public bool Paid { get; set; }
        [DataMember] public bool Charged { get; set; }
        [DataMember] public bool AllowAmountChange { get; set; }
        [DataMember] public decimal Amount { get; set; }
    }

    [DataContract(Namespace = Contract.Namespace)]
    public class InsuranceLineDto : ReceiptLineDto
    {
        [DataMember] public int CUInsuranceID { get; set; }
        [DataMember] public string InsuranceDescription { get; set; }
        [DataMember] public bool IsCash { get; set; }
        [DataMember] public decimal InsuranceAmount { get; set; }
    }

    [DataContract(Namespace = Contract.Namespace)]
    public class TransactionOverrideDto
    {
        [DataMember] public int CUTransactionOverrideID { get; set; }
        [DataMember] public int ReceiptNo { get; set; }
        [DataMember] public int CUAccountID { get; set; }
        [DataMember] public int OverrideType { get; set; }
        [DataMember] public int UserId { get; set; }
        [DataMember] public int TerminalID { get; set; }
        [DataMember] public int CurrencyID { get; set; }
        [DataMember] public int SplitHeaderID { get; set; }
        [DataMember] public string AccountInfo { get; set; }
        [DataMember] public string Description { get; set; }
        [DataMember] public string Message { get; set; }
        [DataMember] public string OverrideTypeText { get; set; }
        [DataMember] public string UserName { get; set; }
        [DataMember] public string TerminalName { get; set; }
        [DataMember] public string Password { get; set; }
        [DataMember] public decimal Amount { get; set; }
        [DataMember] public bool Checked { get; set; }
        [DataMember] public bool Authorised { get; set; }
    }

    [DataContract(Namespace = Contract.Namespace)]
    public class Notes
    {
        [DataMember] public int NoteID { get; set; }
        [DataMember] public string Note { get; set; }
    }

    [DataContract(Namespace = Contract.Namespace)]
    public class ReceiptPaymentDto
    {
        [DataMember] public int CUAccountID { get; set; }
        [DataMember] public string AccountNumber { get; set; }
        [DataMember] public decimal? Amount { get; set; }
        [DataMember] public string Notes { get; set; }
        [DataMember] public List<TransactionOverrideDto> TransactionOverrides { get; set; }
        [DataMember] public int ReceiptNo { get; set; }
        [DataMember] public bool HasOverride { get; set; }
        [DataMember] public string ExternalRefNo { get; set; }
        [DataMember] public string OverrideUserName { get; set; }
        [DataMember] public string OverridePassword { get; set; }
        [DataMember] public bool PayFee { get; set; }
        [DataMember] public bool DontSettleLinkedSavings { get; set; }
        [DataMember] public string ErrorMessage { get; set; }
    }

    [DataContract(Namespace = Contract.Namespace)]
    public class ReceiptSavingsDepositWebDto
    {
        [DataMember] public int CUAccountID { get; set; }
        [DataMember] public string AccountNumber { get; set; }
        [DataMember] public decimal? Amount { get; set; }
        [DataMember] public string Notes { get; set; }
        [DataMember] public List<TransactionOverrideDto> TransactionOverrides { get; set; }
        [DataMember] public int ReceiptNo { get; set; }
        [DataMember] public bool HasOverride { get; set; }
        [DataMember] public string ExternalRefNo { get; set; }
        [DataMember] public string OverrideUserName { get; set; }
        [DataMember] public string OverridePassword { get; set; }
        [DataMember] public ReceiptLineDto Principal { get; set; }
        [DataMember] public string ErrorMessage { get; set; }
        [DataMember] public string Status { get; set; }
        [DataMember] public List<ReceiptLineDto> Accounts { get; set; }
        [DataMember] public List<FeeLineDto> Fees { get; set; }
        [DataMember] public bool IsArrears { get; set; }
        [DataMember] public string Arrears { get; set; }
        [DataMember] public int DaysLate { get; set; }
        [DataMember] public string DueDate { get; set; }
        [DataMember] public string Due { get; set; }
        [DataMember] public string BalanceDate { get; set; }
        [DataMember] public string ClearedFunds { get; set; }
        [DataMember] public decimal Tendered { get; set; }
        [DataMember] public decimal Change { get; set; }
        [DataMember] public AWReceiptType ReceiptType { get; set; }
        [DataMember] public ReceiptLineDto Totals { get; set; }
        [DataMember] public int CurrencyID { get; set; }
        [DataMember] public Dictionary<int, int> ArrearsDays { get; set; }
        [DataMember] public bool IsTransferAccount { get; set; }
        [DataMember] public bool IsLoanAccount { get; set; }
        [DataMember] public InsuranceLineDto Insurance { get; set; }
        [DataMember] public bool DontSettleLinkedSavings { get; set; }
        [DataMember] public string TempToken { get; set; }
        [DataMember] public string FingerPrintURL { get; set; }
    }

    [DataContract(Namespace = Contract.Namespace)]
    public class ReceiptReversalWebDto
    {
        [DataMember] public int CUAccountID { get; set; }
        [DataMember] public string AccountNumber { get; set; }
        [DataMember] public decimal? Amount { get; set; }
        [DataMember] public string Notes { get; set; }
        [DataMember] public List<TransactionOverrideDto> TransactionOverrides { get; set; }
        [DataMember] public int ReceiptNo { get; set; }
        [DataMember] public bool HasOverride { get; set; }
        [DataMember] public string ExternalRefNo { get; set; }
        [DataMember] public string OverrideUserName { get; set; }
        [DataMember] public string OverridePassword { get; set; }
        [DataMember] public ReceiptLineDto Principal { get; set; }
        [DataMember] public string ErrorMessage { get; set; }
        [DataMember] public List<ReceiptLineDto> Accounts { get; set; }
        [DataMember] public List<FeeLineDto> Fees { get; set; }
        [DataMember] public AWReceiptType ReceiptType { get; set; }
        [DataMember] public ReceiptLineDto Totals { get; set; }
        [DataMember] public Dictionary<int, int> ArrearsDays { get; set; }
        [DataMember] public bool IsLoanAccount { get; set; }
        [DataMember] public InsuranceLineDto Insurance { get; set; }
        [DataMember] public ReceiptLineDto Interest { get; set; }
        [DataMember] public int ChargeOffProductID { get; set; }
        [DataMember] public int LoanIssueReversalReasonID { get; set; }
        [DataMember] public Notes LoanIssueReversalNotes { get; set; }
        [DataMember] public LoanStatusReversalOptions LoanReversalOption { get; set; }
        [DataMember] public ProductTypes? ProductTypeID { get; set; }
        [DataMember] public int CustomerID { get; set; }
        [DataMember] public bool IsLoanIssueReversal { get; set; }
        [DataMember] public int ProductID { get; set; }
        [DataMember] public string FingerPrintURL { get; set; }
    }
}
